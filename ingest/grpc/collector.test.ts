// The collector with grpc-js as the client (raw messages, so that malformed ones can be sent): a malformed
// message ends its own stream with INVALID_ARGUMENT and is counted, while another stream goes on; the
// per-peer stream and connection limits refuse what is beyond them; half-close gets the empty response.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { openEmbeddedLog } from '../../lib/log/embedded/index.js';
import { registry } from '../../lib/telemetry/metrics.js';
import { EXPORT_PATH } from '../../schemas/antrea-proto.js';
import { ingestConfig } from '../config.js';
import { createIngest } from '../index.js';
import { agentFlow, encodeMessage } from './testing/flows.js';
import { until } from '../../lib/testing/until.js';

const identity = (b: Buffer) => b;

async function start(t: TestContext, grpcSection: Record<string, unknown> = {}, { aggregatorTransportProtocol = 'none', ...ingestSection }: Record<string, unknown> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-grpc-collector-'));
  const log = await openEmbeddedLog({ dir: join(root, 'log'), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const certDir = join(root, 'tls');
  const config = ingestConfig.parse({
    aggregatorTransportProtocol,
    ingest: { host: '127.0.0.1', port: 0, grpc: { port: 0, ...grpcSection }, tls: { mode: 'directory', dir: certDir }, ...ingestSection },
  });
  const ingest = createIngest(config, { log });
  await ingest.start();
  t.after(() => ingest.stop());
  const tls = { ca: readFileSync(join(certDir, 'ca.crt')), key: readFileSync(join(certDir, 'client.key')), cert: readFileSync(join(certDir, 'client.crt')) };
  const credentials = grpc.credentials.createSsl(tls.ca, tls.key, tls.cert);
  const clients: grpc.Client[] = [];
  t.after(() => clients.forEach((c) => c.close()));
  const client = () => {
    // One channel per client: grpc-js would otherwise share a connection between them.
    const c = new grpc.Client(`127.0.0.1:${ingest.ports.grpc}`, credentials, { 'grpc.ssl_target_name_override': 'flow-aggregator.flow-aggregator.svc', 'grpc.use_local_subchannel_pool': 1 });
    clients.push(c);
    return c;
  };
  return { ingest, client, tls };
}

/** Opens an Export stream; `done` resolves with its final status. */
function exportStream(client: grpc.Client) {
  let resolve!: (s: { code: grpc.status; details: string }) => void;
  const done = new Promise<{ code: grpc.status; details: string }>((r) => (resolve = r));
  const call = client.makeClientStreamRequest(EXPORT_PATH, identity, identity, (err) => resolve(err === null ? { code: grpc.status.OK, details: '' } : { code: err.code!, details: err.details ?? '' }));
  return { call, done };
}

const request = (from: number, n: number) => Buffer.from(encodeMessage('ExportRequest', { flows: Array.from({ length: n }, (_, i) => agentFlow(from + i)) }));

test('a malformed message ends its stream with INVALID_ARGUMENT after the flows before it; another stream goes on', async (t) => {
  const { ingest, client } = await start(t);
  const good = exportStream(client());
  const bad = exportStream(client());
  good.call.write(request(0, 5));
  // Two good flows, then a Flow cut short (a length beyond the message).
  const truncated = Buffer.concat([request(100, 2), Buffer.from([0x0a, 0x40, 0x12, 0x02])]);
  bad.call.write(truncated);
  const badStatus = await bad.done;
  assert.equal(badStatus.code, grpc.status.INVALID_ARGUMENT);
  assert.match(badStatus.details, /malformed .*flows: length beyond the message/);
  good.call.write(request(5, 5));
  good.call.end();
  assert.deepEqual(await good.done, { code: grpc.status.OK, details: '' }, 'the good stream gets the empty ExportResponse at half-close');
  await until('5 + 5 good flows and the 2 before the bad one', () => ingest.stats().written === 12);
  assert.equal(ingest.stats().decodeErrors, 1);
  const metrics = await registry.metrics();
  const value = (line: RegExp) => Number(line.exec(metrics)?.[1] ?? NaN);
  // The bad stream's two flows count under _overflow if it came first: its peer was not yet known (no valid message).
  const records = (exporter: string) => value(new RegExp(`^flowagg_ingest_records_total\\{exporter="${exporter}",transport="grpc"\\} (\\d+)$`, 'm')) || 0;
  assert.ok(records('127\\.0\\.0\\.1') >= 10, 'records counted per exporter with transport grpc');
  assert.ok(records('127\\.0\\.0\\.1') + records('_overflow') >= 12);
  assert.ok(value(/^flowagg_ingest_connections_total\{transport="grpc"\} (\d+)$/m) >= 2, 'connections counted');
  assert.ok(value(/^flowagg_ingest_decode_errors_total\{exporter="127\.0\.0\.1",reason="FLOWAGG_ERR_GRPC_MALFORMED"\} (\d+)$/m) >= 1);
  assert.ok(value(/^flowagg_ingest_grpc_streams_ended_total\{code="INVALID_ARGUMENT"\} (\d+)$/m) >= 1);
});

test('streams beyond maxStreamsPerPeer are refused with RESOURCE_EXHAUSTED; connections beyond maxConnectionsPerPeer are closed', async (t) => {
  const { ingest, client } = await start(t, { maxStreamsPerPeer: 2, maxConnectionsPerPeer: 2 });
  const c = client();
  const streams = [exportStream(c), exportStream(c)];
  for (const s of streams) s.call.write(request(0, 1));
  await until('two open streams', () => ingest.stats().streamSessions === 2);
  const third = exportStream(c);
  third.call.write(request(0, 1));
  const refused = await third.done;
  assert.equal(refused.code, grpc.status.RESOURCE_EXHAUSTED);
  assert.match(refused.details, /more than 2 concurrent Export streams from 127\.0\.0\.1/);
  for (const s of streams) s.call.end();
  for (const s of streams) assert.equal((await s.done).code, grpc.status.OK);

  // c holds one connection; two more clients make three from 127.0.0.1: one of them is refused.
  const outcomes = await Promise.all([client(), client()].map(async (other) => {
    const s = exportStream(other);
    s.call.write(request(0, 1));
    s.call.end();
    return (await s.done).code;
  }));
  assert.deepEqual(outcomes.sort(), [grpc.status.OK, grpc.status.UNAVAILABLE].sort(), `outcomes ${outcomes.join(',')}`);
});

test('a client that pings more often than grpc-go allows is sent away with GOAWAY ENHANCE_YOUR_CALM too_many_pings', async (t) => {
  const { ingest, tls } = await start(t);
  const session = http2.connect(`https://127.0.0.1:${ingest.ports.grpc}`, { ...tls, servername: 'flow-aggregator.flow-aggregator.svc' });
  session.on('error', () => {});
  t.after(() => session.destroy());
  const goaway = new Promise<{ code: number; data: string }>((resolve) => session.once('goaway', (code, _last, data) => resolve({ code, data: data?.toString() ?? '' })));
  await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
  let answered = 0;
  for (let i = 0; i < 10 && !session.closed && !session.destroyed; i++) {
    await new Promise<void>((resolve) => session.ping((err) => { if (err === null) answered++; resolve(); }));
  }
  assert.deepEqual(await goaway, { code: http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, data: 'too_many_pings' });
  assert.ok(answered >= 3 && answered < 10, `${answered} pings answered before the GOAWAY (the first one and two strikes)`);
});

test("the collector grants each connection and each stream flowControlWindow bytes, not HTTP/2's 64 KiB", async (t) => {
  const window = 2 * 1024 * 1024;
  const { ingest, tls } = await start(t, { flowControlWindow: '2MiB' });
  const session = http2.connect(`https://127.0.0.1:${ingest.ports.grpc}`, { ...tls, servername: 'flow-aggregator.flow-aggregator.svc' });
  session.on('error', () => {});
  t.after(() => session.destroy());
  const granted = () => ({ stream: session.remoteSettings?.initialWindowSize, connection: session.state?.remoteWindowSize });
  await until('the collector to grant its windows', () => granted().stream === window && granted().connection === window, { timeoutMs: 5000 }).catch(() => {});
  assert.deepEqual(granted(), { stream: window, connection: window });
});

test('gRPC connections count against the budget ingest.tcp sets for every stream connection', async (t) => {
  const { ingest, client } = await start(t, {}, { aggregatorTransportProtocol: 'tcp', tcp: { maxConnections: 2, reservedForKnownSources: 1 } });
  // A TCP connection that sent nothing takes the one unreserved slot: a new gRPC peer is refused at accept.
  const squatter = connect({ host: '127.0.0.1', port: ingest.ports.tcp! });
  squatter.on('error', () => {});
  await once(squatter, 'connect');
  const refused = exportStream(client());
  refused.call.write(request(0, 1));
  refused.call.end();
  assert.equal((await refused.done).code, grpc.status.UNAVAILABLE);
  squatter.destroy();
  await until('the squatter gone', () => ingest.stats().streamSessions === 0);
  const accepted = exportStream(client());
  accepted.call.write(request(0, 3));
  accepted.call.end();
  assert.equal((await accepted.done).code, grpc.status.OK);
  await until('the three flows written', () => ingest.stats().written === 3);
  const metrics = await registry.metrics();
  assert.match(metrics, /^flowagg_ingest_grpc_refused_total\{reason="reserved"\} [1-9]/m);
});

test('an Agent is known from its verified handshake: Agents holding idle streams do not fill the slots kept from unknown addresses', async (t) => {
  // One slot for unknown addresses. Before its first Flow an Agent's connection took it, and every other Agent was refused.
  const { ingest, client } = await start(t, {}, { tcp: { maxConnections: 3, reservedForKnownSources: 2 } });
  const idle = exportStream(client());
  await until('the first Agent connected', () => ingest.stats().streamSessions === 1 || undefined);
  const second = exportStream(client());
  second.call.write(request(0, 2));
  second.call.end();
  assert.equal((await second.done).code, grpc.status.OK, 'the second Agent got in while the first held its stream without a Flow');
  await until('the two flows written', () => ingest.stats().written === 2);
  idle.call.end();
  assert.equal((await idle.done).code, grpc.status.OK);
});
