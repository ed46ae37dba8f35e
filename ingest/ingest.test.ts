// The ingest service end to end on the embedded log: agent-like exporters over TCP and UDP, malformed
// input, two replicas sharing UDP templates, and backpressure from a stalled log.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import type { MessageLog } from '../lib/log/types.js';
import type { FlowRecord } from '../schemas/flow-record.js';
import { type IngestConfig, ingestConfig } from './config.js';
import { createIngest, type Ingest, type IngestDeps } from './index.js';
import { parseFlowKey } from '../schemas/flow-key.js';
import { agentMessages, agentRecordValues, agentTemplate, ControllableProducer, readFlowRecords, withProducer } from './testing/fakes.js';
import { readAll } from '../lib/log/embedded/testing/read-all.js';
import { ManualClock } from '../lib/testing/manual-clock.js';
import { until, untilHolds } from '../lib/testing/until.js';
import { clockTickTime } from '../schemas/clock-tick.js';

function config(protocols: string[], ingest: Record<string, unknown> = {}): IngestConfig {
  return ingestConfig.parse({ aggregatorTransportProtocol: protocols, ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false }, ...ingest } });
}

async function openLog(t: TestContext): Promise<MessageLog> {
  const log = await openEmbeddedLog({ dir: mkdtempSync(join(tmpdir(), 'flowagg-ingest-')), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  return log;
}

async function startIngest(t: TestContext, cfg: IngestConfig, deps: IngestDeps): Promise<Ingest> {
  const ingest = createIngest(cfg, deps);
  await ingest.start();
  t.after(() => ingest.stop());
  return ingest;
}

async function tcpExporter(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** The record `i` an agent-like exporter sent, as its FlowRecord must show it. */
function assertAgentRecord(r: FlowRecord, i: number, exporterPort: number, transport: string): void {
  const values = agentRecordValues(agentTemplate(), i);
  const names = agentTemplate().fields.map((f) => f.ie.name);
  const v = (name: string) => values[names.indexOf(name)];
  assert.equal(r.exporterAddress, '127.0.0.1');
  assert.equal(r.exporterPort, exporterPort);
  assert.equal(r.transport, transport);
  assert.equal(r.templateId, 256);
  assert.equal(r.observationDomainId, 1);
  assert.equal(r.sourceIPv4Address!.join('.'), v('sourceIPv4Address'));
  assert.equal(r.sourceTransportPort, v('sourceTransportPort'));
  assert.equal(r.protocolIdentifier, 6);
  assert.equal(r.sourcePodName, v('sourcePodName'));
  assert.equal(r.destinationNodeName, v('destinationNodeName'));
  assert.equal(r.octetDeltaCount, v('octetDeltaCount'));
  assert.equal(r.flowStartMilliseconds, (v('flowStartSeconds') as number) * 1000);
}

function recordIndex(r: FlowRecord): number {
  return Number(/-(\d+)$/.exec(r.sourcePodName as string)![1]);
}

test('agent-like exporters over TCP: every record reaches flows.raw with its values and flow key', async (t) => {
  const log = await openLog(t);
  const ingest = await startIngest(t, config(['tcp']), { log });
  const exporters = await Promise.all([tcpExporter(ingest.ports.tcp!), tcpExporter(ingest.ports.tcp!)]);
  const perExporter = 700;
  exporters.forEach((socket, e) => {
    const encoder = new MessageEncoder({ observationDomainId: 1 });
    for (const m of agentMessages(encoder, agentTemplate(), e * perExporter, perExporter)) socket.write(m);
  });
  await until('every record written', () => ingest.stats().written === 2 * perExporter);
  const records = await readFlowRecords(log);
  assert.equal(records.length, 2 * perExporter);
  const seen = new Set<number>();
  for (const { key, record } of records) {
    const i = recordIndex(record);
    const e = Math.floor(i / perExporter);
    assertAgentRecord(record, i, exporters[e]!.localPort!, 'tcp');
    const flowKey = parseFlowKey(key!);
    assert.equal(flowKey?.sourcePort, record.sourceTransportPort);
    seen.add(i);
  }
  assert.equal(seen.size, 2 * perExporter, 'no record twice, none missing');
  assert.equal(ingest.stats().lostInTransit, 0);
  for (const s of exporters) s.destroy();
});

test('UDP: records arrive; a malformed datagram is counted and skipped without disturbing other exporters', async (t) => {
  const log = await openLog(t);
  const ingest = await startIngest(t, config(['udp']), { log });
  const port = ingest.ports.udp!;
  const good = createSocket('udp4');
  const bad = createSocket('udp4');
  t.after(() => {
    good.close();
    bad.close();
  });
  const send = (s: typeof good, m: Buffer) => new Promise<void>((resolve, reject) => s.send(m, port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
  const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
  const messages = agentMessages(encoder, agentTemplate(), 0, 200);
  await send(bad, Buffer.from('definitely not IPFIX'));
  const truncated = Buffer.from(messages[1]!.subarray(0, 40));
  truncated.writeUInt16BE(40, 2);
  await send(bad, truncated);
  for (const m of messages) {
    await send(good, m);
    await sleep(1);
  }
  await until('the good exporter\'s records', () => ingest.stats().written === 200);
  const stats = ingest.stats();
  assert.equal(stats.droppedMessages, 1, 'the non-IPFIX datagram');
  assert.ok(stats.decodeErrors >= 2, 'both bad datagrams counted');
  assert.equal(stats.lostInTransit, 0);
  const records = await readFlowRecords(log);
  assert.equal(records.length, 200);
  const goodPort = good.address().port;
  for (const { record } of records) assertAgentRecord(record, recordIndex(record), goodPort, 'udp');
});

test('UDP: a gap in sequence numbers is counted as records lost in transit', async (t) => {
  const log = await openLog(t);
  const ingest = await startIngest(t, config(['udp']), { log });
  const socket = createSocket('udp4');
  t.after(() => socket.close());
  const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
  const messages = agentMessages(encoder, agentTemplate(), 0, 100);
  const lostMessage = messages[2]!;
  const lost = (messages[3]!.readUInt32BE(8) - lostMessage.readUInt32BE(8)) >>> 0;
  for (const m of messages) if (m !== lostMessage) socket.send(m, ingest.ports.udp!, '127.0.0.1');
  await until('the records that were sent', () => ingest.stats().written === 100 - lost);
  assert.equal(ingest.stats().lostInTransit, lost);
});

test('malformed input over TCP closes only that session; the other exporter keeps working', async (t) => {
  const log = await openLog(t);
  const ingest = await startIngest(t, config(['tcp']), { log });
  const good = await tcpExporter(ingest.ports.tcp!);
  const bad = await tcpExporter(ingest.ports.tcp!);
  const badEncoder = new MessageEncoder({ observationDomainId: 1 });
  const [first] = agentMessages(badEncoder, agentTemplate(), 0, 10);
  // A data set for a template this session never defined, after a good message.
  const orphan = agentMessages(new MessageEncoder({ observationDomainId: 1 }), agentTemplate(300), 0, 5, false)[0]!;
  const badClosed = new Promise((resolve) => bad.once('close', resolve));
  bad.write(Buffer.concat([first!, orphan]));
  await badClosed;
  await until('the bad session to be gone', () => ingest.stats().streamSessions === 1);
  const encoder = new MessageEncoder({ observationDomainId: 1 });
  for (const m of agentMessages(encoder, agentTemplate(), 1000, 50)) good.write(m);
  await until('the good exporter\'s records', () => ingest.stats().written === 60);
  const records = await readFlowRecords(log);
  assert.deepEqual(records.map((r) => recordIndex(r.record)).sort((a, b) => a - b), [...Array(10).keys(), ...Array.from({ length: 50 }, (_, i) => 1000 + i)]);
  assert.equal(ingest.stats().decodeErrors, 1);
  good.destroy();
});

test('two replicas on one log: a UDP template sent to one decodes data sent to the other', async (t) => {
  const log = await openLog(t);
  const a = await startIngest(t, config(['udp']), { log, replicaId: 'a' });
  const b = await startIngest(t, config(['udp']), { log, replicaId: 'b' });
  const socket = createSocket('udp4');
  t.after(() => socket.close());
  const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
  encoder.addTemplate(agentTemplate());
  const [templateOnly] = encoder.flush();
  socket.send(templateOnly!, a.ports.udp!, '127.0.0.1');
  // The template travels a → ipfix.templates → b; wait until b has it, then send b only data.
  await until('b to learn the template from the topic (its session of the exporter appears)', () => b.stats().udpSessions === 1);
  // A session made from a shared template is not a connection to b (numConnectionsToCollector).
  assert.equal(b.stats().udpExporters, 0);
  assert.equal(a.stats().udpExporters, 1);
  const data = agentMessages(encoder, agentTemplate(), 0, 30, false);
  for (const m of data) socket.send(m, b.ports.udp!, '127.0.0.1');
  await until('b to decode the data', () => b.stats().written === 30);
  assert.equal(b.stats().decodeErrors, 0);
  assert.equal(b.stats().udpExporters, 1);
  const records = await readFlowRecords(log);
  assert.equal(records.length, 30);
  for (const { record } of records) assertAgentRecord(record, recordIndex(record), socket.address().port, 'udp');
});

test('backpressure: a stalled log makes TCP exporters block, with the queue and memory bounded', async (t) => {
  const log = await openLog(t);
  const producer = new ControllableProducer({ stalled: true });
  const maxRecords = 2000;
  const ingest = await startIngest(t, config(['tcp'], { queue: { maxRecords, batchRecords: 500, maxInFlightBatches: 2 } }), { log: withProducer(log, producer) });
  const exporter = await tcpExporter(ingest.ports.tcp!);
  const encoder = new MessageEncoder({ observationDomainId: 1 });
  let sent = 0;
  const batch = 2000;
  // Keep writing, as an agent would, until the exporter's own buffer shows its writes are not drained.
  while (exporter.writableLength < 4 * 1024 * 1024 && sent < 400_000) {
    for (const m of agentMessages(encoder, agentTemplate(), sent, batch, sent === 0)) exporter.write(m);
    sent += batch;
    await sleep(5);
  }
  await until('the session to pause', () => ingest.stats().pausedStreams === 1);
  const stalled = ingest.stats();
  assert.ok(exporter.writableLength >= 4 * 1024 * 1024, `the exporter is blocked (${exporter.writableLength} bytes unsent) after ${sent} records`);
  assert.equal(stalled.pausedStreams, 1, 'the session is paused');
  assert.equal(stalled.throttled, true);
  assert.ok(stalled.queuedRecords < maxRecords + 1000, `queue bounded: ${stalled.queuedRecords} records`);
  assert.ok(stalled.records < sent, 'the collector stopped taking records it cannot queue');
  assert.equal(stalled.droppedRecords, 0, 'nothing is dropped over TCP');
  producer.release();
  await until('every record after the log recovers', () => ingest.stats().written === sent, { timeoutMs: 60_000 });
  assert.equal(producer.records().length, sent);
  exporter.destroy();
});

test('its clock drives ingest\'s periodic work: a clock tick to every flows.raw partition each clockTick, a silent TCP connection closed at firstMessageTimeout, an idle UDP session swept at templateTtl', async (t) => {
  const log = await openLog(t);
  const clock = new ManualClock(1_700_000_000_000);
  const start = clock.now();
  const cfg = ingestConfig.parse({
    aggregatorTransportProtocol: ['udp', 'tcp'],
    ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false }, clockTick: '1s', templateTtl: '1m', tcp: { firstMessageTimeout: '30s' } },
    log: { topics: { flowsRawPartitions: 2 } },
  });
  const ingest = await startIngest(t, cfg, { log, clock });

  clock.advance(2000);
  const ticks = async () => (await readAll(log, 'flows.raw')).flatMap((r) => {
    const time = clockTickTime(r);
    return time === undefined ? [] : [`${r.partition}@${time - start}`];
  });
  assert.deepEqual((await untilHolds('four clock ticks in flows.raw', ticks, (got) => got.length >= 4)).sort(), ['0@1000', '0@2000', '1@1000', '1@2000']);

  const silent = await tcpExporter(ingest.ports.tcp!);
  const closed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
  silent.resume();
  await until('the silent TCP session', () => ingest.stats().streamSessions === 1);
  clock.advance(29_000);
  assert.equal(ingest.stats().streamSessions, 1, 'open before firstMessageTimeout');
  clock.advance(2000);
  await closed;
  await until('the silent session to be gone', () => ingest.stats().streamSessions === 0);

  const udp = createSocket('udp4');
  t.after(() => udp.close());
  const encoder = new MessageEncoder({ observationDomainId: 1 });
  for (const m of agentMessages(encoder, agentTemplate(), 0, 5)) udp.send(m, ingest.ports.udp!, '127.0.0.1');
  await until('the UDP records', () => ingest.stats().written === 5);
  assert.equal(ingest.stats().udpSessions, 1);
  clock.advance(55_000);
  assert.equal(ingest.stats().udpSessions, 1, 'kept before templateTtl');
  // Sweeps run every templateTtl / 4 (at most 5 s): the first past the minute drops the session.
  clock.advance(10_000);
  assert.equal(ingest.stats().udpSessions, 0, 'the session idle for templateTtl is swept');
  for (const m of agentMessages(encoder, agentTemplate(), 5, 5, false)) udp.send(m, ingest.ports.udp!, '127.0.0.1');
  await until('the data without its template to be skipped', () => ingest.stats().skippedSets === 1);
  assert.equal(ingest.stats().written, 5);
});

test('a start that fails once it listens gives up what it took: no send retried for ever against a log that is gone', async (t) => {
  const log = await openLog(t);
  const started: { ingest?: Ingest } = {};
  let sends = 0;
  const fail = () => Promise.reject(new Error(`broker gone (send ${++sends})`));
  const admin = log.admin();
  // A broker gone down during the start: sends fail, and the metadata read after the listeners opened fails
  // once an exporter's records are queued.
  const failing: MessageLog = Object.assign(Object.create(log) as MessageLog, {
    producer: () => ({ send: fail, sendRuns: fail, close: async () => {} }),
    admin: () => Object.assign(Object.create(admin) as typeof admin, {
      listTopics: async () => {
        const port = started.ingest?.ports.tcp;
        if (port === undefined) return admin.listTopics();
        const socket = await tcpExporter(port);
        t.after(() => socket.destroy());
        for (const m of agentMessages(new MessageEncoder({ observationDomainId: 1 }), agentTemplate(), 0, 5)) socket.write(m);
        await until('the records queued', () => started.ingest!.stats().queuedRecords === 5);
        throw new Error('broker gone');
      },
    }),
  });
  const ingest = (started.ingest = createIngest(config(['tcp']), { log: failing }));
  await assert.rejects(ingest.start(), /broker gone/);
  await assert.rejects(tcpExporter(ingest.ports.tcp!), (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED', 'the listener is closed');
  assert.equal(ingest.stats().droppedRecords, 5, 'what it took is counted as dropped');
  // A retry already due may run once more, and then gives up.
  await sleep(1500);
  const tried = sends;
  await sleep(1500);
  assert.equal(sends, tried, 'no send tried again');
});
