// `flowagg run` end to end on the embedded log: agents' IPFIX over TCP through ingest and the processor,
// then the API as antctl uses it in the FlowAggregator Pod (its exact requests over HTTPS to 127.0.0.1,
// the certificate not verified, the bearer token from the loopback token file) and the shapes antctl
// decodes; tokens other than the loopback one reviewed by (the fake) Kubernetes; `flowagg get`.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ApiTarget, apiRequest } from '../../../lib/apiserver/client.js';
import { FakeKubeApiServer } from '../../../lib/k8s/testing/fake-api-server.js';
import { rootLogger } from '../../../lib/telemetry/logger.js';
import { until } from '../../../lib/testing/until.js';
import type { ParsedArgs } from '../command.js';
import { sendAgentRecords, startRun } from '../testing/run-in-process.js';
import { runGet } from './get.js';
import { programVersion } from '../../version.js';

function kubeconfigFile(dir: string, fake: FakeKubeApiServer): string {
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'fake',
    // The fake speaks plain HTTP, which client-node refuses unless told not to verify TLS.
    clusters: [{ name: 'fake', cluster: { server: fake.url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'fake', user: { token: fake.token } }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake' } }],
  }));
  return file;
}

test("antctl's requests over HTTPS with the loopback token; other tokens as Kubernetes reviews them; flowagg get", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-run-'));
  const fake = await FakeKubeApiServer.start();
  t.after(() => fake.stop());
  fake.addToken('viewer-token', { username: 'flow-viewer' });
  fake.allow('flow-viewer', 'get /flowrecords', 'get /recordmetrics');
  fake.addToken('stranger-token', { username: 'stranger' });
  const tokenFile = join(dir, 'loopback-client-token');
  const { file, ports } = await startRun(t, dir, `apiServer:\n  bindAddress: 127.0.0.1\n  loopbackTokenFile: ${tokenFile}\nkubernetes:\n  enable: false\n  kubeconfig: ${kubeconfigFile(dir, fake)}\n`);
  const { sent, plans, socket, node } = await sendAgentRecords(ports.collectors.tcp!);
  t.after(() => void socket.end());

  // antctl in the FlowAggregator Pod: https://127.0.0.1:10348, the certificate not verified, the token from the file.
  const antctl: ApiTarget = { url: `https://127.0.0.1:${ports.http}`, token: readFileSync(tokenFile, 'utf8'), insecure: true };
  const get = async (path: string, target = antctl) => {
    const res = await apiRequest(target, path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.json;
  };
  const metrics = await until('the records to be aggregated', async () => {
    const m = (await get('/recordmetrics')) as Record<string, unknown>;
    return m.numRecordsReceived === sent && m.numRecordsProcessed === sent && (m.numFlows as number) > 0 ? m : undefined;
  });

  // RecordMetricsResponse: antctl decodes these keys into int64 and bool fields.
  for (const key of ['numRecordsExported', 'numRecordsReceived', 'numFlows', 'numConnToCollector']) assert.ok(Number.isSafeInteger(metrics[key]), `${key}: ${String(metrics[key])}`);
  for (const key of ['withClickHouseExporter', 'withS3Exporter', 'withLogExporter', 'withIPFIXExporter']) assert.equal(typeof metrics[key], 'boolean', key);
  assert.equal(metrics.numConnToCollector, 1, 'one TCP session');
  assert.equal(metrics.numFlows, plans.length);

  // GET /version: Kubernetes' version.Info, whose gitVersion antctl version prints.
  const version = (await get('/version')) as Record<string, unknown>;
  assert.equal(version.gitVersion, `v${programVersion()}`);
  assert.equal(typeof version.major, 'string');

  // GET /loglevel answers a number; PUT /loglevel?level=N sets it and answers nothing, as Antrea.
  const level = rootLogger.level;
  t.after(() => void (rootLogger.level = level));
  assert.ok(Number.isInteger(await get('/loglevel')));
  const put = await apiRequest(antctl, '/loglevel?level=4', { method: 'PUT' });
  assert.deepEqual([put.status, put.text], [200, '']);
  assert.equal(await get('/loglevel'), 4);
  assert.equal((await apiRequest(antctl, '/loglevel?level=0', { method: 'PUT' })).status, 200);
  const badLevel = await apiRequest(antctl, '/loglevel?level=verbose', { method: 'PUT' });
  assert.equal(badLevel.status, 400);
  assert.match((badLevel.json as { error: string }).error, /level: "verbose" is not a log verbosity/);

  // GET /flowrecords with antctl's five filters: []FlowRecordsResponse, maps with Antrea's IE names.
  const plan = plans.find((p) => p.reporters[0]!.node === node)!;
  const query = new URLSearchParams({ srcip: plan.sourceAddress, dstip: plan.destinationAddress, proto: String(plan.protocol), srcport: String(plan.sourcePort), dstport: String(plan.destinationPort) });
  const records = (await get(`/flowrecords?${query}`)) as Record<string, unknown>[];
  assert.equal(records.length, 1, 'the filter finds the one flow');
  const r = records[0]!;
  assert.deepEqual(
    [r.sourceIPv4Address, r.destinationIPv4Address, r.sourceTransportPort, r.destinationTransportPort, r.protocolIdentifier, r.packetTotalCount],
    [plan.sourceAddress, plan.destinationAddress, plan.sourcePort, plan.destinationPort, plan.protocol, plan.totals.packets],
  );
  // The keys of antctl's table (SRC_POD, DST_POD, SRC_NS, DST_NS, SERVICE).
  for (const key of ['sourcePodName', 'destinationPodName', 'sourcePodNamespace', 'destinationPodNamespace', 'destinationServicePortName']) assert.equal(typeof r[key], 'string', key);
  assert.equal(((await get('/flowrecords')) as unknown[]).length, plans.length);

  // Refused: no token (anonymous, which Kubernetes does not allow), a wrong token, a token Kubernetes denies.
  const status = async (token: string | undefined, path = '/flowrecords') => (await apiRequest({ ...antctl, token }, path)).status;
  assert.equal(await status(undefined), 403);
  assert.equal(await status('not-a-token'), 401);
  assert.equal(await status('stranger-token'), 403);
  // Answered: a token Kubernetes allows, for what it allows.
  assert.equal(await status('viewer-token'), 200);
  assert.equal(await status('viewer-token', '/recordmetrics'), 200);
  assert.equal(await status('viewer-token', '/version'), 403);
  assert.equal((await apiRequest({ ...antctl, token: 'viewer-token' }, '/loglevel?level=9', { method: 'PUT' })).status, 403, 'viewer may not put /loglevel');
  assert.equal(await status(undefined, '/healthz'), 200);

  // flowagg get: by default through the address the process published beside its log (its CA verified) ...
  const out: string[] = [];
  const flowaggGet = (positionals: string[], values: ParsedArgs['values']) => runGet({ positionals, values: { config: file, ...values } }, (s) => out.push(s), {});
  assert.equal(await flowaggGet(['flowrecords'], { output: 'json', srcip: plan.sourceAddress, srcport: String(plan.sourcePort) }), 0);
  assert.equal((JSON.parse(out.pop()!) as unknown[]).length, 1);
  assert.equal(await flowaggGet(['flowrecords'], {}), 0);
  const table = out.pop()!.trim().split('\n');
  assert.match(table[0]!, /^SRC_IP\s+DST_IP\s+SPORT\s+DPORT\s+PROTO/);
  assert.equal(table.length, plans.length + 1);
  // ... or as antctl: HTTPS to the port, the token from the loopback token file.
  assert.equal(await flowaggGet(['recordmetrics'], { output: 'json', server: `127.0.0.1:${ports.http}`, 'token-file': tokenFile }), 0);
  assert.equal((JSON.parse(out.pop()!) as Record<string, number>).numFlows, plans.length);
  writeFileSync(join(dir, 'wrong-token'), 'not-the-token\n');
  await assert.rejects(flowaggGet(['recordmetrics'], { server: `127.0.0.1:${ports.http}`, 'token-file': join(dir, 'wrong-token') }), /answered status 401: Unauthorized: invalid bearer token/);
  await assert.rejects(flowaggGet(['recordmetrics'], { server: `127.0.0.1:${ports.http}`, 'token-file': file }), /does not hold a bearer token/);

  const badFilter = await apiRequest(antctl, '/flowrecords?srcip=999.1.1.1');
  assert.equal(badFilter.status, 400);
  assert.match((badFilter.json as { error: string }).error, /srcip: "999.1.1.1" is not an IPv4 or IPv6 address/);
});
