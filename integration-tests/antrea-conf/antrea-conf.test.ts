// Issue 17's "switching from Antrea breaks nothing": Antrea's chart-rendered flow-aggregator.conf and its
// variants (lib/config/testdata) pass `flowagg config check` and run unchanged: `flowagg run --config
// FILE` starts, is ready, takes the Agents' IPFIX over TLS, delivers to the file's destination, logs no
// warning or error, and exits 0 on SIGTERM. ClickHouse and S3 are in clickhouse.test.ts and s3.test.ts
// (their servers come from `npm test`).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeKubeApiServer, kubeConfigFor } from '../../lib/k8s/testing/fake-api-server.js';
import { until } from '../../lib/testing/until.js';
import { issueCA, issueClientCert, issueServerCert } from '../../lib/tls/issue.js';
import { FLOW_LOG_FIELDS } from '../../exporters/row/columns.js';
import { CollectedDecoder, decodeCollected } from '../../exporters/ipfix/testing/exporter.js';
import { startTcpCollector } from '../harness/collector.js';
import { recordMetrics } from '../harness/flowagg-run.js';
import { type AntreaConf, assertConfigCheckPasses, confFile, runConf, simulateAgents, stopConf } from './testing/conf-run.js';

const ALL: readonly AntreaConf[] = ['flow-aggregator', 'proxy-ipfix', 'clickhouse', 's3', 'flow-logger', 'tls-ipfix-tcp'];
const POLL = { intervalMs: 200 };

function scratch(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-antrea-conf-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("Antrea's flow-aggregator.conf, unchanged", () => {
  for (const name of ALL) test(`flowagg config check antrea-${name}.conf: valid, no warning`, () => assertConfigCheckPasses(confFile(name)));

  test('the default file: flowagg run takes the Agents\' records over TLS and exits 0 on SIGTERM', async (t) => {
    const c = await runConf(t, confFile('flow-aggregator'));
    const sent = await simulateAgents(c, t.signal);
    await until('every record sent written to flows.raw', async () => (await recordMetrics(c.run)).numRecordsWritten >= sent);
    await stopConf(c);
  });

  test('Proxy with an IPFIX collector: every record forwarded with the Proxy template, the observation domain and clusterID of the file', async (t) => {
    const collector = await startTcpCollector();
    t.after(() => collector.close());
    const c = await runConf(t, confFile('proxy-ipfix'), { FLOWAGG_CFG_FLOWCOLLECTOR_ADDRESS: `127.0.0.1:${collector.port}:tcp` });
    const sent = await simulateAgents(c, t.signal);
    const got = new CollectedDecoder(collector.messages);
    await until(`the ${sent} records at the collector`, () => got.update() >= sent, POLL);
    await stopConf(c);
    got.update();
    assert.deepEqual(got.templates.map((x) => [x.id, x.fields.length]), [[256, 59], [257, 59]], 'Proxy: 50 elements and the 9 UUIDs of includeK8sUIDs');
    assert.ok(got.headers.every((h) => h.observationDomainId === 4217));
    assert.ok(got.records.every((r) => r.clusterId === 'custom-cluster-id' && typeof r.flowDirection === 'number' && typeof r.originalObservationDomainId === 'number'));
    assert.equal(got.records.length, sent, 'each record once');
  });

  test('the flow logger: CSV lines of Antrea\'s 30 fields, only the denied flows the filters ask for', async (t) => {
    const c = await runConf(t, confFile('flow-logger'), { FLOWAGG_CFG_FLOWLOGGER_PATH: 'antrea-flows.log' });
    await simulateAgents(c, t.signal);
    const lines = () => readFileSync(join(c.dir, 'antrea-flows.log'), 'utf8').split('\n').filter((l) => l !== '');
    await until('denied flows in the flow log', () => lines().length > 0, POLL);
    await stopConf(c);
    const at = (name: string) => FLOW_LOG_FIELDS.indexOf(name as (typeof FLOW_LOG_FIELDS)[number]);
    for (const line of lines()) {
      const fields = line.split(',');
      assert.equal(fields.length, 30, line);
      const denied = ['Drop', 'Reject'];
      assert.ok(denied.includes(fields[at('ingressNetworkPolicyRuleAction')]!) || denied.includes(fields[at('egressNetworkPolicyRuleAction')]!), `a denied flow: ${line}`);
    }
  });

  test('TLS with IPFIX over TCP: mutual TLS to the collector with the CA and client certificate of the Secrets the file names', async (t) => {
    const validity = { now: new Date(), validityMs: 86_400_000 };
    const ca = await issueCA(validity);
    const server = await issueServerCert(ca, ['ipfix-collector.example.com'], validity);
    const client = await issueClientCert(ca, validity);
    const collector = await startTcpCollector('127.0.0.1', { tls: { key: server.key, cert: server.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.3' } });
    t.after(() => collector.close());
    const fake = await FakeKubeApiServer.start();
    t.after(() => fake.stop());
    const b64 = (pem: string) => Buffer.from(pem).toString('base64');
    fake.seed('secrets',
      { metadata: { name: 'ipfix-collector-ca', namespace: 'flow-aggregator' }, data: { 'ca.crt': b64(ca.cert) } },
      { metadata: { name: 'ipfix-collector-client-tls', namespace: 'flow-aggregator' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64(client.cert), 'tls.key': b64(client.key) } });
    fake.seed('configmaps', { metadata: { name: 'antrea-cluster-identity', namespace: 'kube-system' }, data: { uuid: '5e5f2f4a-1c2b-4d3e-8f9a-0b1c2d3e4f50' } });
    const kubeconfig = join(scratch(t), 'kubeconfig');
    writeFileSync(kubeconfig, kubeConfigFor(fake).exportConfig());
    const c = await runConf(t, confFile('tls-ipfix-tcp'), {
      FLOWAGG_CFG_FLOWCOLLECTOR_ADDRESS: `127.0.0.1:${collector.port}:tcp`,
      FLOWAGG_CFG_KUBERNETES_ENABLE: 'true',
      FLOWAGG_CFG_KUBERNETES_KUBECONFIG: kubeconfig,
      POD_NAMESPACE: 'flow-aggregator',
    });
    const sent = await simulateAgents(c, t.signal);
    // Aggregate mode: a correlated flow is one record, so fewer than were sent; the denied ones come within seconds.
    await until('aggregated records at the collector', () => decodeCollected(collector.messages).records.length > 0, POLL);
    await stopConf(c);
    assert.equal(collector.authorizedSessions, 1, 'one session, with the client certificate of ipfix-collector-client-tls');
    const got = decodeCollected(collector.messages);
    assert.deepEqual(got.templates.map((x) => [x.id, x.fields.length]), [[256, 70], [257, 70]]);
    assert.ok(got.records.length <= sent);
    assert.ok(got.records.every((r) => r.clusterId === '5e5f2f4a-1c2b-4d3e-8f9a-0b1c2d3e4f50'), 'the cluster UUID from antrea-cluster-identity');
  });

  test('a flowCollector change in the file replaces the running exporter: the new collector gets its session', async (t) => {
    const [first, second] = await Promise.all([startTcpCollector(), startTcpCollector()]);
    t.after(() => Promise.all([first.close(), second.close()]));
    const text = readFileSync(confFile('proxy-ipfix'), 'utf8');
    const address = (port: number) => text.replace('"ipfix-collector.flow-collector.svc:4739:tcp"', `"127.0.0.1:${port}:tcp"`);
    // A copy, edited as an operator edits the ConfigMap: the collector's address is the test's.
    const edited = join(scratch(t), 'flow-aggregator.conf');
    writeFileSync(edited, address(first.port));
    const c = await runConf(t, edited);
    await first.waitForMessages(1, 10_000);
    writeFileSync(edited, address(second.port));
    await second.waitForMessages(1, 30_000);
    assert.deepEqual(decodeCollected(second.messages).templates.map((x) => x.id), [256, 257], 'both templates as the new session opens');
    const sent = await simulateAgents(c, t.signal);
    const got = new CollectedDecoder(second.messages);
    await until('the records at the new collector', () => got.update() >= sent, POLL);
    await sleep(500);
    assert.equal(decodeCollected(first.messages).records.length, 0, 'none at the old one');
    await stopConf(c);
  });
});
