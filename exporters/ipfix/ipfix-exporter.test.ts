// The IPFIX exporter against real sockets: a TCP, TLS or UDP collector on loopback receives what it
// sends, and flowagg's decoder reads it back.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { startTcpCollector, startUdpCollector } from '../../integration-tests/harness/collector.js';
import { issueCA, issueClientCert, issueServerCert } from '../../lib/tls/issue.js';
import { until } from '../../lib/testing/until.js';
import { numberedRecord } from '../testing/records.js';
import { IPFIX_EXPORT_CONNECT, IPFIX_EXPORT_TLS } from './errors.js';
import { batchOf, decodeCollected, ipfixExporter } from './testing/exporter.js';

const signal = new AbortController().signal;
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => numberedRecord(from + i));

/** A port nobody listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('TCP: both templates first, then many records per message with Antrea values, sequence numbers counting data records', async (t) => {
  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp` }, { clusterID: 'cluster-a' });
  await exporter.start();
  t.after(() => exporter.stop());
  await exporter.deliver(batchOf(range(0, 3000)), signal);
  await exporter.deliver(batchOf([numberedRecord(3000, { sourceIPv4Address: null, destinationIPv4Address: null, sourceIPv6Address: Buffer.from('20010db8000000000000000000000001', 'hex'), destinationIPv6Address: Buffer.from('20010db8000000000000000000000002', 'hex') })]), signal);
  await collector.waitForMessages(1, 10_000);
  while (decodeCollected(collector.messages).records.length < 3001) await collector.waitForMessages(collector.messages.length + 1, 10_000);
  const got = decodeCollected(collector.messages);
  assert.deepEqual(got.templates.map((x) => [x.id, x.fields.length]), [[256, 70], [257, 70]]);
  assert.ok(got.headers.length < 100, `${got.headers.length} messages for 3001 records: many records per message`);
  let before = 0;
  for (const h of got.headers) {
    assert.equal(h.sequenceNumber, before, 'sequence number = data records sent before the message');
    assert.equal(h.observationDomainId, 0);
    assert.ok(h.length <= 65535);
    before += h.records;
  }
  const r = got.records[1234]!;
  assert.deepEqual(
    [r.templateId, r.sourceIPv4Address, r.destinationIPv4Address, r.sourceTransportPort, r.octetDeltaCount, r.packetTotalCount, r.flowStartSeconds, r.flowEndSeconds, r.sourcePodName, r.destinationServicePortName, r.tcpState, r.clusterId],
    [256, '10.1.4.210', '10.2.0.1', 11234, 1234, 2468, 1_700_000_000 + 1234, 1_700_000_005 + 1234, 'client-2', 'perf/server:5201', 'ESTABLISHED', 'cluster-a'],
  );
  // Antrea's conventions for what the record lacks.
  assert.deepEqual([r.egressIP, r.proxySnatIPv4, r.destinationServiceIPv4, r.sourcePodLabels, r.throughput, r.ingressNetworkPolicyName], ['', '0.0.0.0', '0.0.0.0', '', 0, '']);
  const v6 = got.records[3000]!;
  assert.deepEqual([v6.templateId, v6.sourceIPv6Address, v6.destinationIPv6Address, v6.proxySnatIPv6], [257, '2001:db8::1', '2001:db8::2', '::']);
});

test('Proxy mode: the original exporter elements and flowDirection, with 0xFF for unknown; UUIDs as 16 bytes', async (t) => {
  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}`, includeK8sUIDs: true, observationDomainID: 99 }, { mode: 'Proxy' });
  await exporter.start();
  t.after(() => exporter.stop());
  const uuid = Buffer.from('8d0f6a4e2b1c4d3e9f8a7b6c5d4e3f2a', 'hex');
  await exporter.deliver(batchOf([numberedRecord(1, { exporterAddress: '192.0.2.7', observationDomainId: 42, sourcePodUUID: uuid }), numberedRecord(2, { flowDirection: 1, originalObservationDomainId: 5 })]), signal);
  await collector.waitForMessages(1, 10_000);
  const got = decodeCollected(collector.messages);
  assert.equal(got.templates[0]!.fields.length, 50 + 9, 'the 9 UUID elements join the 50');
  const [a, b] = got.records;
  assert.deepEqual([a!.originalObservationDomainId, a!.originalExporterIPv4Address, a!.originalExporterIPv6Address, a!.flowDirection], [42, '192.0.2.7', '::', 255]);
  assert.deepEqual([b!.originalObservationDomainId, b!.flowDirection], [5, 1]);
  assert.deepEqual(Buffer.from(a!.sourcePodUUID as Uint8Array), uuid);
  assert.deepEqual(Buffer.from(a!.destinationPodUUID as Uint8Array), Buffer.alloc(16));
  assert.equal(got.headers[0]!.observationDomainId, 99);
  assert.equal(a!.throughput, undefined, 'no aggregation elements in Proxy mode');
});

test('a collector that closes its session gets a new one at the next delivery: templates again, sequence from 0', async (t) => {
  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}` });
  await exporter.start();
  t.after(() => exporter.stop());
  await exporter.deliver(batchOf(range(0, 10)), signal);
  await collector.waitForMessages(1, 10_000);
  await collector.drainAndClose();
  const again = await startTcpCollector('127.0.0.1', { port: collector.port });
  t.after(() => again.close());
  // The drain completed only after the exporter closed its side: it knows the session is gone.
  await exporter.deliver(batchOf(range(10, 10)), signal);
  await again.waitForMessages(1, 10_000);
  const got = decodeCollected(again.messages);
  assert.deepEqual(got.templates.map((x) => x.id), [256, 257]);
  assert.equal(got.headers[0]!.sequenceNumber, 0);
  assert.deepEqual(got.records.map((r) => r.octetDeltaCount), range(10, 10).map((r) => r.octetDeltaCount));
});

test('UDP: messages fit the path MTU (or maxIPFIXMsgSize), templates are sent again every templateRefreshTimeout', async (t) => {
  const collector = await startUdpCollector();
  t.after(() => collector.close());
  let now = 1_700_000_000_000;
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:udp`, maxIPFIXMsgSize: 1400, templateRefreshTimeout: '10s' }, {}, { now: () => now });
  await exporter.start();
  t.after(() => exporter.stop());
  await exporter.deliver(batchOf(range(0, 100)), signal);
  now += 5000;
  await exporter.deliver(batchOf(range(100, 10)), signal);
  now += 6000;
  await exporter.deliver(batchOf(range(110, 10)), signal);
  const got = await (async () => {
    for (;;) {
      const d = decodeCollected(collector.messages, 'udp');
      if (d.records.length === 120) return d;
      await collector.waitForMessages(collector.messages.length + 1, 10_000);
    }
  })();
  assert.ok(collector.messages.every((m) => m.bytes.length <= 1400));
  assert.deepEqual(got.templates.map((x) => x.id), [256, 257, 256, 257], 'announced at the start and again after 10 s');
  assert.equal(got.headers.at(-1)!.exportTime, Math.floor(now / 1000));
});

test('UDP: the templates are sent again every templateRefreshTimeout while no data flows, and the timer stops with the exporter', async (t) => {
  const collector = await startUdpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:udp`, templateRefreshTimeout: '200ms' });
  await exporter.start();
  await collector.waitForMessages(3, 10_000);
  await exporter.stop();
  const got = decodeCollected(collector.messages, 'udp');
  assert.equal(got.records.length, 0, 'no data was delivered');
  assert.ok(got.headers.every((h) => h.records === 0));
  assert.deepEqual(got.templates.slice(0, 6).map((x) => x.id), [256, 257, 256, 257, 256, 257], 'at the start, then on the timer');
  const after = collector.messages.length;
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal(collector.messages.length, after, 'nothing once stopped');
});

test('TCP: both templates as the session opens, before any data', async (t) => {
  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp` });
  await exporter.start();
  t.after(() => exporter.stop());
  await collector.waitForMessages(1, 10_000);
  const got = decodeCollected(collector.messages);
  assert.deepEqual(got.templates.map((x) => [x.id, x.fields.length]), [[256, 70], [257, 70]]);
  assert.equal(got.records.length, 0);
});

test('JSON lines: one object per record, addresses and UUIDs as text', async (t) => {
  const server = createServer();
  const lines: string[] = [];
  let buffered = '';
  server.on('connection', (s) => s.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const exporter = ipfixExporter({ address: `127.0.0.1:${(server.address() as { port: number }).port}`, recordFormat: 'JSON', includeK8sUIDs: true });
  await exporter.start();
  await exporter.deliver(batchOf([numberedRecord(7, { sourcePodUUID: Buffer.from('8d0f6a4e2b1c4d3e9f8a7b6c5d4e3f2a', 'hex') }), numberedRecord(8)]), signal);
  await until('the two JSON lines', () => lines.length >= 2);
  await exporter.stop();
  const [first] = lines.map((l) => JSON.parse(l) as { ipfix: Record<string, unknown>; '@timestamp': string });
  assert.equal(first!.ipfix.sourceIPv4Address, '10.1.0.7');
  assert.equal(first!.ipfix.sourcePodUUID, '8d0f6a4e-2b1c-4d3e-9f8a-7b6c5d4e3f2a');
  assert.equal(first!.ipfix.octetDeltaCount, 7);
  assert.match(first!['@timestamp'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
});

test('mutual TLS with a custom CA from files; a bad certificate path fails the start naming the key', async (t) => {
  const validity = { now: new Date(), validityMs: 86_400_000 };
  const ca = await issueCA(validity);
  const server = await issueServerCert(ca, ['localhost'], validity);
  const client = await issueClientCert(ca, validity);
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-ipfix-tls-'));
  for (const [name, pem] of [['ca.crt', ca.cert], ['client.crt', client.cert], ['client.key', client.key]] as const) writeFileSync(join(dir, name), pem);
  const collector = await startTcpCollector('127.0.0.1', { tls: { key: server.key, cert: server.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: true } });
  t.after(() => collector.close());
  const tls = { enable: true, caFile: join(dir, 'ca.crt'), certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key'), serverName: 'localhost', minVersion: 'VersionTLS13' };
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp`, tls });
  await exporter.start();
  await exporter.deliver(batchOf(range(0, 5)), signal);
  await collector.waitForMessages(1, 10_000);
  await exporter.stop();
  assert.equal(collector.authorizedSessions, 1);
  assert.equal(decodeCollected(collector.messages).records.length, 5);

  const noClientCert = ipfixExporter({ address: `127.0.0.1:${collector.port}:tcp`, tls: { enable: true, caFile: join(dir, 'ca.crt'), serverName: 'localhost' } });
  // With TLS 1.3 the client may finish its side of the handshake, and deliver, before the collector refuses it.
  await noClientCert.start().then(() => noClientCert.deliver(batchOf(range(0, 1)), signal), () => undefined);
  await until('the collector to refuse the client without certificate', () => collector.refusedHandshakes === 1);
  await noClientCert.stop();
  assert.equal(collector.authorizedSessions, 1, 'a client without certificate is not a session');

  const badPath = ipfixExporter({ address: `127.0.0.1:${collector.port}`, tls: { ...tls, caFile: join(dir, 'missing.crt') } });
  await assert.rejects(badPath.start(), (e) => isFlowaggError(e, IPFIX_EXPORT_TLS) && /flowCollector\.tls\.caFile: cannot read .*missing\.crt/.test(e.message));
});

test('an unreachable collector fails the start naming flowCollector.address', async () => {
  const port = await closedPort();
  const exporter = ipfixExporter({ address: `127.0.0.1:${port}` });
  await assert.rejects(exporter.start(), (e) => isFlowaggError(e, IPFIX_EXPORT_CONNECT) && /flowCollector\.address/.test(e.message) && /ECONNREFUSED/.test(e.message));
  const unknownHost = ipfixExporter({ address: 'no-such-collector.invalid:4739:udp' });
  await assert.rejects(unknownHost.start(), (e) => isFlowaggError(e, IPFIX_EXPORT_CONNECT) && /no-such-collector\.invalid/.test(e.message));
});

test('Proxy mode: a record no Antrea Agent made goes out in the flow template (announced before its first record, and again at a refresh), with its IANA elements and provenance', async (t) => {
  const collector = await startUdpCollector();
  t.after(() => collector.close());
  let now = 1_700_000_000_000;
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:udp`, templateRefreshTimeout: '10s' }, { mode: 'Proxy' }, { now: () => now });
  await exporter.start();
  t.after(() => exporter.stop());
  const router = numberedRecord(7, {
    flowType: null, transport: 'netflow_v9', exporterAddress: '192.0.2.254', observationDomainId: 9, flowStartMilliseconds: 1_700_000_000_123, flowEndMilliseconds: 1_700_000_004_567,
    tcpControlBits: 0x1b, ipClassOfService: 32, ingressInterface: 3, egressInterface: 4, bgpSourceAsNumber: 64500, ipNextHopIPv4Address: Buffer.from([192, 0, 2, 1]),
    sourceMacAddress: Buffer.from('00005e005301', 'hex'), samplingInterval: 100, originalObservationDomainId: 9, originalExporterIPv4Address: Buffer.from([192, 0, 2, 254]), flowDirection: 1,
  });
  await exporter.deliver(batchOf([numberedRecord(0)]), signal);
  await exporter.deliver(batchOf([router]), signal);
  now += 11_000;
  await exporter.deliver(batchOf([numberedRecord(1)]), signal);
  const got = await (async () => {
    for (;;) {
      const d = decodeCollected(collector.messages, 'udp');
      if (d.records.length === 3) return d;
      await collector.waitForMessages(collector.messages.length + 1, 10_000);
    }
  })();
  assert.deepEqual(got.templates.map((x) => x.id), [256, 257, 258, 256, 257, 258], 'Antrea\'s two at the start, the flow template before its first record, all three at the refresh');
  const flow = got.records.find((r) => r.templateId === 258)!;
  assert.deepEqual(
    [flow.flowStartMilliseconds, flow.flowEndMilliseconds, flow.sourceTransportPort, flow.tcpControlBits, flow.ipClassOfService, flow.ingressInterface, flow.egressInterface, flow.bgpSourceAsNumber, flow.ipNextHopIPv4Address, flow.sourceMacAddress, flow.samplingInterval, flow.originalExporterIPv4Address, flow.originalObservationDomainId, flow.flowDirection, flow.octetDeltaCount],
    [1_700_000_000_123, 1_700_000_004_567, router.sourceTransportPort, 0x1b, 32, 3, 4, 64500, '192.0.2.1', '00:00:5e:00:53:01', 100, '192.0.2.254', 9, 1, router.octetDeltaCount],
  );
  assert.deepEqual(got.records.filter((r) => r.templateId === 256).map((r) => r.sourceTransportPort), [numberedRecord(0).sourceTransportPort, numberedRecord(1).sourceTransportPort]);
});
