// How fast `flowagg simulate` itself sends, per transport, on one core: the simulator runs as the CLI in its
// own process (one event loop), against collectors in this process that read and discard (TCP, TLS with
// the client certificate, UDP, gRPC with mutual TLS), so that what is measured is the simulator, not a
// collector. A figure is records sent per second of sending, and per CPU-second of the simulator process;
// every run checks that the sink got every byte (datagrams for UDP) the simulator reports sent.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { createSocket } from 'node:dgram';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { issueCA, issueClientCert, issueServerCert } from '../lib/tls/issue.js';
import { runTool } from '../integration-tests/harness/tools.js';
import { DEFAULT_SERVER_NAME } from '../simulate/tls.js';
import type { SimulationReport } from '../simulate/report.js';
import { EXPORT_PATH } from '../schemas/antrea-proto.js';
import { until } from '../lib/testing/until.js';
import type { BenchResult, Benchmark } from './types.js';

const CLI = join(import.meta.dirname, '../bin/flowagg.js');
const identity = (b: Buffer) => b;

interface Sink {
  readonly port: number;
  /** Bytes (UDP: datagrams) received so far. */
  received(): number;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function streamSink(server: Server, count: { bytes: number }): Promise<Sink> {
  return listening(server).then((port) => ({ port, received: () => count.bytes, close: () => new Promise((r) => server.close(() => r())) }));
}

async function sinks(tls: { ca: string; cert: string; key: string }): Promise<Record<'tcp' | 'tls' | 'udp' | 'grpc', Sink>> {
  const tcpCount = { bytes: 0 };
  const tcp = await streamSink(createTcpServer((s) => s.on('data', (b: Buffer) => (tcpCount.bytes += b.length))), tcpCount);
  const tlsCount = { bytes: 0 };
  const tlsServer = createTlsServer({ ...tls, requestCert: true, rejectUnauthorized: true }, (s) => s.on('data', (b: Buffer) => (tlsCount.bytes += b.length)));
  const secure = await streamSink(tlsServer, tlsCount);
  const udpSocket = createSocket('udp4');
  let datagrams = 0;
  udpSocket.on('message', () => datagrams++);
  udpSocket.bind(0, '127.0.0.1');
  await once(udpSocket, 'listening');
  const udp: Sink = { port: udpSocket.address().port, received: () => datagrams, close: () => new Promise((r) => udpSocket.close(() => r())) };
  const server = new grpc.Server();
  let flows = 0;
  server.register(EXPORT_PATH, (call: grpc.ServerReadableStream<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
    call.on('data', (m: Buffer) => (flows += m.length));
    call.on('end', () => callback(null, Buffer.alloc(0)));
    call.on('error', () => {});
  }, identity, identity, 'clientStream');
  const credentials = grpc.ServerCredentials.createSsl(Buffer.from(tls.ca), [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], true);
  const grpcPort = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (err, port) => (err ? reject(err) : resolve(port))));
  const rpc: Sink = { port: grpcPort, received: () => flows, close: () => new Promise((r) => server.tryShutdown(() => r())) };
  return { tcp, tls: secure, udp, grpc: rpc };
}

const bench: Benchmark = async (log) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-simulate-bench-'));
  const validity = { now: new Date(), validityMs: 86_400_000 };
  const ca = await issueCA(validity);
  const server = await issueServerCert(ca, [DEFAULT_SERVER_NAME], validity);
  const client = await issueClientCert(ca, validity);
  writeFileSync(join(dir, 'ca.crt'), ca.cert);
  writeFileSync(join(dir, 'client.crt'), client.cert);
  writeFileSync(join(dir, 'client.key'), client.key);
  const all = await sinks({ ca: ca.cert, cert: server.cert, key: server.key });
  const results: BenchResult[] = [];
  try {
    for (const transport of ['tcp', 'tls', 'udp', 'grpc'] as const) {
      const sink = all[transport];
      const before = sink.received();
      // 200,000 flows exported every second give 320,000 records a second: more than the simulator makes.
      const args = ['simulate', '--transport', transport, '--target', `127.0.0.1:${sink.port}`, '--duration', '10s', '--nodes', '10', '--flows', '200000', '--export-interval', '1s', '-q', '-o', 'json'];
      if (transport === 'tls' || transport === 'grpc') args.push('--tls-dir', dir);
      const run = await runTool(process.execPath, [CLI, ...args], { timeoutMs: 600_000 });
      const report = JSON.parse(run.stdout) as SimulationReport;
      // What the sink counts: bytes over TCP and TLS, datagrams over UDP, message bytes over gRPC.
      const expected = transport === 'udp' ? report.nodes.reduce((a, n) => a + n.messages, 0) : report.nodes.reduce((a, n) => a + n.bytes, 0);
      // A wait that ends at its bound is judged below: UDP may drop datagrams, the stream transports may not.
      await until(`the ${transport} sink to receive what the simulator sent`, () => sink.received() - before >= expected, { timeoutMs: 20_000 }).catch(() => {});
      const got = sink.received() - before;
      if (transport !== 'udp' && got !== expected) throw new Error(`${transport}: the sink received ${got} bytes, the simulator reports ${expected} sent`);
      const load = loadavg()[0]!.toFixed(1);
      const perSecond = report.rate.achieved;
      const perCpu = report.records.sent / report.cpuSeconds;
      log(`${transport}: ${report.records.sent} records in ${(report.durationMs / 1000).toFixed(1)} s using ${report.cpuSeconds.toFixed(1)} CPU-s; the sink got ${got} of ${expected}; load average ${load}`);
      const messages = { tcp: 'messages of up to 65,535 bytes', tls: 'TLS 1.3, messages of up to 65,535 bytes', udp: 'datagrams of up to 1,400 bytes', grpc: 'one Flow per ExportRequest, mutual TLS' }[transport];
      const note = `10 Nodes, 200,000 flows exported every 1 s, ${messages}; the sink reads and discards; load average ${load}`;
      results.push({ name: `simulate over ${transport}, records sent`, value: perSecond, unit: 'records/s', note });
      results.push({ name: `simulate over ${transport}, per CPU-second of the simulator`, value: perCpu, unit: 'records/CPU-s', note: `${transport === 'udp' ? `${got} of ${expected} datagrams received; ` : ''}load average ${load}` });
    }
  } finally {
    await Promise.all(Object.values(all).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
};

export default bench;
