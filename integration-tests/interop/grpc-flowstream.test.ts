// FlowStreamService.GetFlows read by the grpc-go client (integration-tests/go/agent -mode getflows) over
// server TLS: history from flows.processed, then live records with `follow`; filters (namespaces with a
// direction, Pod label selectors, CIDRs, Services, flow types), `since` and `max_count`; bad filters refused
// with INVALID_ARGUMENT. The records on flows.processed are written here, as the processor would.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { decodeFlow, referenceRecord } from '../../ingest/grpc/flow-reference.js';
import { agentFlow, encodeFlow, encodeMessage, lengthDelimited, readDelimited } from '../../ingest/grpc/testing/flows.js';
import { flowKeyOfRecord } from '../../schemas/flow-key.js';
import { DirectoryCertificateStore } from '../../lib/tls/directory-store.js';
import { CertificateProvider } from '../../lib/tls/provider.js';
import { createFlowStream } from '../../exporters/flowstream/index.js';
import { flowStreamSection } from '../../exporters/flowstream/config.js';
import { tlsSection } from '../../lib/tls/config.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { antreaType } from '../../schemas/antrea-proto.js';
import { flowRecordWriter } from '../../schemas/flow-record.js';
import { requireGoProgram } from '../harness/go.js';
import { runTool } from '../harness/tools.js';

const TOPIC = 'flows.processed';
const N = 60;
const GetFlowsResponse = antreaType('GetFlowsResponse');

/** The parts of a streamed Flow the assertions read (protobufjs's object form). */
interface StreamedFlow {
  end_ts: { seconds: number };
  ip: { version: number; source: Uint8Array };
  transport: { TCP: { state_name: string } };
  stats: { octet_total_count: number };
  k8s: { source_pod_name: string; source_pod_labels: { labels: Record<string, string> } };
}

/** Flow i: namespace dev for even i, prod for odd; label app=frontend for i % 3 === 0; ends at 1_700_000_000 + i. */
function processedRecord(i: number) {
  const flow = agentFlow(i);
  const k8s = flow.k8s as Record<string, unknown>;
  k8s.source_pod_namespace = i % 2 === 0 ? 'dev' : 'prod';
  k8s.destination_service_port_name = i % 4 === 0 ? 'prod/web:http' : 'prod/api';
  k8s.flow_type = i % 5 === 0 ? 3 : 2;
  flow.end_ts = { seconds: 1_700_000_000 + i };
  const record = { ...referenceRecord(decodeFlow(encodeFlow(flow)), { exporterAddress: '10.0.0.1', exporterPort: 1 }, 0) } as Record<string, unknown>;
  record.sourcePodLabels = JSON.stringify(i % 3 === 0 ? { app: 'frontend', tier: 'web' } : { app: 'backend' });
  return record;
}

async function setup(t: TestContext) {
  const agent = await requireGoProgram(t, 'agent', { proto: true });
  if (agent === undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'flowagg-flowstream-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  await log.admin().createTopics([{ topic: TOPIC, partitions: 3 }]);
  const writer = flowRecordWriter();
  const produce = async (from: number, to: number) => {
    const records = Array.from({ length: to - from }, (_, k) => processedRecord(from + k));
    await log.producer().send(TOPIC, records.map((r) => ({ key: flowKeyOfRecord(r as never), value: writer.encode(r as never) })));
  };
  await produce(0, N);
  const tlsDir = join(root, 'tls');
  const certificates = new CertificateProvider({ store: new DirectoryCertificateStore(tlsDir), serverNames: ['flow-aggregator.flow-aggregator.svc'], validityMs: 86_400_000 * 365, renewBeforeMs: 86_400_000, checkIntervalMs: 3_600_000 });
  await certificates.start();
  t.after(() => certificates.stop());
  const service = createFlowStream({
    flowStreamService: flowStreamSection.parse({ enable: true, port: 0, batchFlows: 25 }), ingest: { host: '127.0.0.1', tls: tlsSection.parse({}) },
    flowAggregatorAddress: '', log: { topics: { flowsProcessed: TOPIC, flowsProcessedPartitions: 3 } },
  }, { log, certificates });
  await service.start();
  t.after(() => service.stop());
  let call = 0;
  const getFlows = async (request: Record<string, unknown>) => {
    const [requestFile, outFile] = [join(root, `request-${call}.bin`), join(root, `out-${call++}.bin`)];
    writeFileSync(requestFile, lengthDelimited([encodeMessage('GetFlowsRequest', request)]));
    const run = await runTool(agent, ['-mode', 'getflows', '-addr', `127.0.0.1:${service.port}`, '-ca', join(tlsDir, 'ca.crt'), '-request', requestFile, '-out', outFile], { timeoutMs: 120_000, signal: t.signal });
    const outcome = JSON.parse(run.stdout.trim()) as { code: string; message?: string; responses: number };
    const responses = readDelimited(readFileSync(outFile)).map((b) => GetFlowsResponse.toObject(GetFlowsResponse.decode(b), { longs: Number, defaults: true }) as { flows: StreamedFlow[]; dropped_count: number });
    return { ...outcome, responses, flows: responses.flatMap((r) => r.flows) };
  };
  return { getFlows, produce };
}

const ends = (flows: StreamedFlow[]) => flows.map((f) => Number(f.end_ts.seconds) - 1_700_000_000).sort((a, b) => a - b);
const range = (n: number, keep: (i: number) => boolean) => Array.from({ length: n }, (_, i) => i).filter(keep);

test('GetFlows: the history, with filters, since and max_count; bad filters are INVALID_ARGUMENT', async (t) => {
  const s = await setup(t);
  if (s === undefined) return;
  const all = await s.getFlows({});
  assert.equal(all.code, 'OK', all.message);
  assert.deepEqual(ends(all.flows), range(N, () => true));
  assert.ok(all.responses.every((r) => r.flows.length <= 25 && r.dropped_count === 0));
  const f3 = all.flows.find((f) => Number(f.end_ts.seconds) === 1_700_000_003)!;
  assert.equal(f3.k8s.source_pod_name, 'frontend-7d9f8c6b5-3');
  assert.deepEqual([...f3.ip.source], [10, 10, 1, 3]);
  assert.equal(f3.ip.version, 4);
  assert.equal(f3.transport.TCP.state_name, 'ESTABLISHED');
  assert.equal(Number(f3.stats.octet_total_count), 1_500_021);
  assert.deepEqual(f3.k8s.source_pod_labels.labels, { app: 'frontend', tier: 'web' });

  const dev = await s.getFlows({ filters: [{ namespaces: ['dev'], direction: 1 }] });
  assert.deepEqual(ends(dev.flows), range(N, (i) => i % 2 === 0));
  const devTo = await s.getFlows({ filters: [{ namespaces: ['dev'], direction: 2 }] });
  assert.deepEqual(devTo.flows, [], 'no destination is in dev');
  const labelled = await s.getFlows({ filters: [{ pod_label_selector: 'app=frontend,tier notin (db)', direction: 1 }] });
  assert.deepEqual(ends(labelled.flows), range(N, (i) => i % 3 === 0));
  const both = await s.getFlows({ filters: [{ namespaces: ['dev'] }, { pod_label_selector: 'app in (frontend)' }] });
  assert.deepEqual(ends(both.flows), range(N, (i) => i % 6 === 0), 'filters AND');
  const cidr = await s.getFlows({ filters: [{ ips: ['10.10.1.0/30', '10.10.1.9'], direction: 1 }] });
  assert.deepEqual(ends(cidr.flows), [0, 1, 2, 3, 9]);
  const web = await s.getFlows({ filters: [{ service_names: ['web'], flow_types: [2] }] });
  assert.deepEqual(ends(web.flows), range(N, (i) => i % 4 === 0 && i % 5 !== 0));
  const since = await s.getFlows({ since: { seconds: 1_700_000_050 } });
  assert.deepEqual(ends(since.flows), range(N, (i) => i >= 50));
  const capped = await s.getFlows({ max_count: 7 });
  assert.equal(capped.code, 'OK');
  assert.equal(capped.flows.length, 7);

  const badSelector = await s.getFlows({ filters: [{}, { pod_label_selector: 'app in ()' }] });
  assert.equal(badSelector.code, 'InvalidArgument');
  assert.match(badSelector.message!, /^invalid filter 1: /);
  const badIp = await s.getFlows({ filters: [{ ips: ['10.0.0.0/33'] }] });
  assert.equal(badIp.code, 'InvalidArgument');
  assert.match(badIp.message!, /invalid filter 0: invalid CIDR "10.0.0.0\/33"/);
  const fromService = await s.getFlows({ filters: [{ service_names: ['web'], direction: 1 }] });
  assert.equal(fromService.code, 'InvalidArgument');
});

test('GetFlows with follow: the history, then records written after the call started', async (t) => {
  const s = await setup(t);
  if (s === undefined) return;
  const following = s.getFlows({ follow: true, max_count: N + 10, filters: [{ namespaces: ['dev', 'prod'] }] });
  // Written once the call is under way; max_count ends the call when they have arrived.
  setTimeout(() => void s.produce(N, N + 10), 1500);
  const result = await following;
  assert.equal(result.code, 'OK', result.message);
  assert.deepEqual(ends(result.flows), range(N + 10, () => true));
});
