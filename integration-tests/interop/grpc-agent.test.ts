// The gRPC collector against the Go gRPC stack an Antrea Agent uses (issue 9): a grpc-go client built from
// our .proto files (integration-tests/go/agent) dials as the Agent does, with the shared client certificate
// and server name flow-aggregator.flow-aggregator.svc, and its flows must arrive in flows.raw with every field
// as the mapping table says. Refused: no client certificate, another CA's, TLS 1.1, a wrong ALPN.
// With the log stalled, a stream of 1,000,000 flows holds memory bounded and, once the log is back, loses none.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { ingestConfig } from '../../ingest/config.js';
import { referenceRecord, decodeFlow } from '../../ingest/grpc/flow-reference.js';
import { agentFlow, encodeFlow, lengthDelimited } from '../../ingest/grpc/testing/flows.js';
import { createIngest, type Ingest } from '../../ingest/index.js';
import { ControllableProducer, readFlowRecords, withProducer } from '../../ingest/testing/fakes.js';
import { issueCA, issueClientCert } from '../../lib/tls/issue.js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import type { MessageLog } from '../../lib/log/types.js';
import { flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { requireGoProgram } from '../harness/go.js';
import { runTool } from '../harness/tools.js';
import { until } from '../../lib/testing/until.js';

const SERVICE_NAME = 'flow-aggregator.flow-aggregator.svc';

interface AgentOutcome {
  readonly sent: number;
  readonly code: string;
  readonly message?: string;
}

interface Setup {
  readonly agent: string;
  readonly root: string;
  readonly log: MessageLog;
  readonly ingest: Ingest;
  readonly certs: { readonly ca: string; readonly cert: string; readonly key: string };
  run(args: readonly string[]): Promise<AgentOutcome>;
}

async function setup(t: TestContext, opts: { producer?: ControllableProducer; queue?: Record<string, unknown> } = {}): Promise<Setup | undefined> {
  const agent = await requireGoProgram(t, 'agent', { proto: true });
  if (agent === undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'flowagg-grpc-'));
  const real = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => real.close());
  const log = opts.producer === undefined ? real : withProducer(real, opts.producer);
  const certDir = join(root, 'tls');
  const config = ingestConfig.parse({
    aggregatorTransportProtocol: 'none',
    ingest: { host: '127.0.0.1', port: 0, grpc: { port: 0 }, tls: { mode: 'directory', dir: certDir }, ...(opts.queue && { queue: opts.queue }) },
  });
  const ingest = createIngest(config, { log });
  await ingest.start();
  t.after(() => ingest.stop());
  const certs = { ca: join(certDir, 'ca.crt'), cert: join(certDir, 'client.crt'), key: join(certDir, 'client.key') };
  const run = async (args: readonly string[]) => {
    const r = await runTool(agent, ['-addr', `127.0.0.1:${ingest.ports.grpc}`, '-servername', SERVICE_NAME, ...args], { timeoutMs: 300_000, signal: t.signal });
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as AgentOutcome;
  };
  return { agent, root, log, ingest, certs, run };
}

function writeFlows(root: string, name: string, flows: readonly Uint8Array[]): string {
  const path = join(root, name);
  writeFileSync(path, lengthDelimited(flows));
  return path;
}

test('flows a grpc-go client sends as an Antrea Agent arrive in flows.raw with every field right', async (t) => {
  const s = await setup(t);
  if (s === undefined) return;
  const flows = [
    ...Array.from({ length: 300 }, (_, i) => agentFlow(i)),
    ...Array.from({ length: 100 }, (_, i) => agentFlow(i, true)),
  ];
  // Whatever the client says its address is, the collector writes the peer's.
  for (const f of flows) (f.ipfix as Record<string, unknown>).exporter_ip = '192.0.2.66';
  const bytes = flows.map(encodeFlow);
  const file = writeFlows(s.root, 'flows.bin', bytes);
  const outcome = await s.run(['-flows', file, '-halfclose', '-ca', s.certs.ca, '-cert', s.certs.cert, '-key', s.certs.key]);
  assert.deepEqual({ sent: outcome.sent, code: outcome.code }, { sent: 400, code: 'OK' }, outcome.message);
  await until('the 400 flows in flows.raw', () => s.ingest.stats().written === 400);
  const records = (await readFlowRecords(s.log)).map((r) => r.record);
  assert.equal(records.length, 400);
  // The log's partitions interleave: match by source port and family, each unique.
  const keyOf = (r: { sourceTransportPort: unknown; sourceIPv6Address: unknown }) => `${String(r.sourceTransportPort)}/${r.sourceIPv6Address === null ? 4 : 6}`;
  const byKey = new Map(records.map((r) => [keyOf(r), r]));
  // The reference record through Avro, so that it has every field the schema has.
  const [writer, reader] = [flowRecordWriter(), flowRecordReader()];
  bytes.forEach((b) => {
    const expected = reader.decode(writer.encode(referenceRecord(decodeFlow(b), { exporterAddress: '127.0.0.1', exporterPort: 0 }, 0)));
    const got = byKey.get(keyOf(expected))!;
    assert.ok(got !== undefined, keyOf(expected));
    assert.ok(Math.abs(got.receiveTime - Date.now()) < 600_000);
    assert.ok(got.exporterPort > 0);
    assert.deepEqual({ ...got, receiveTime: 0, exporterPort: 0, extras: [...got.extras] }, { ...expected, extras: [...expected.extras] });
  });
  assert.equal(records[0]!.exporterAddress, '127.0.0.1');
  assert.equal(records[0]!.transport, 'grpc');
});

test('no client certificate, another CA\'s certificate, TLS 1.1 and a wrong ALPN are refused; nothing arrives', async (t) => {
  const s = await setup(t);
  if (s === undefined) return;
  const file = writeFlows(s.root, 'flows.bin', [encodeFlow(agentFlow(1))]);
  const noCert = await s.run(['-flows', file, '-halfclose', '-ca', s.certs.ca]);
  assert.notEqual(noCert.code, 'OK', 'without a client certificate');
  const other = await issueCA({ now: new Date(), validityMs: 86_400_000 });
  const foreign = await issueClientCert(other, { now: new Date(), validityMs: 86_400_000 });
  writeFileSync(join(s.root, 'foreign.crt'), foreign.cert);
  writeFileSync(join(s.root, 'foreign.key'), foreign.key);
  const untrusted = await s.run(['-flows', file, '-halfclose', '-ca', s.certs.ca, '-cert', join(s.root, 'foreign.crt'), '-key', join(s.root, 'foreign.key')]);
  assert.notEqual(untrusted.code, 'OK', 'with a certificate of another CA');
  assert.equal(untrusted.sent + noCert.sent, 0);

  const client = { ca: readFileSync(s.certs.ca), cert: readFileSync(s.certs.cert), key: readFileSync(s.certs.key), servername: SERVICE_NAME };
  /** Whether the collector keeps a TLS connection with these options open (it speaks HTTP/2 first on a good one). */
  const attempt = (opts: Record<string, unknown>) =>
    new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: s.ingest.ports.grpc!, ...client, ...opts });
      socket.once('data', () => {
        socket.destroy();
        resolve('accepted');
      });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      socket.once('end', () => resolve('closed'));
      socket.once('close', () => resolve('closed'));
    });
  assert.equal(await attempt({ ALPNProtocols: ['h2'] }), 'accepted', 'the control: a proper client is let in');
  assert.notEqual(await attempt({ ALPNProtocols: ['http/1.1'] }), 'accepted', 'ALPN http/1.1');
  assert.notEqual(await attempt({}), 'accepted', 'no ALPN');
  assert.notEqual(await attempt({ ALPNProtocols: ['h2'], minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }), 'accepted', 'TLS 1.1');
  // Every refused connection has ended (the attempts above saw it): nothing of theirs can still arrive.
  assert.equal(s.ingest.stats().records, 0);
});

test('1,000,000 flows on one stream with the log stalled: the stream is held, memory stays bounded, nothing is lost', async (t) => {
  const producer = new ControllableProducer({ stalled: true });
  const s = await setup(t, { producer, queue: { maxRecords: 20_000, batchRecords: 2000 } });
  if (s === undefined) return;
  const total = 1_000_000;
  const file = writeFlows(s.root, 'flows.bin', Array.from({ length: 1000 }, (_, i) => encodeFlow(agentFlow(i))));
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const sending = s.run(['-flows', file, '-total', String(total), '-batch', '10', '-halfclose', '-ca', s.certs.ca, '-cert', s.certs.cert, '-key', s.certs.key]);
  await until('the queue to fill', () => s.ingest.stats().throttled);
  // Held: while the log is stalled, what ingest takes stops growing after the queue's bound (plus what
  // grpc-js had buffered), however long the Agent keeps trying.
  const held = s.ingest.stats().records;
  await sleep(2000);
  const later = s.ingest.stats();
  assert.ok(later.records - held <= 2000, `ingest kept reading while throttled: ${held} then ${later.records}`);
  assert.ok(later.records < total / 10, `${later.records} flows taken with the log stalled`);
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
  assert.ok(heapGrowth < 256 * 2 ** 20, `heap grew by ${(heapGrowth / 2 ** 20).toFixed(0)} MiB with the log stalled`);
  producer.release();
  const outcome = await sending;
  assert.deepEqual({ sent: outcome.sent, code: outcome.code }, { sent: total, code: 'OK' }, outcome.message);
  await until('every flow written', () => s.ingest.stats().written === total, { timeoutMs: 300_000 });
  assert.equal(producer.records().length, total);
  assert.equal(s.ingest.stats().droppedRecords, 0);
});
