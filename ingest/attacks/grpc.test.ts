// Attack test for the gRPC collector (issue 11: "the same limits apply per stream and per peer"). While an Agent
// from 127.0.0.1 exports its flows over one stream, other loopback addresses, at a bounded rate and for a bounded
// time, ping without pause, hold TLS connections open without a stream and TCP ones without a handshake, open
// streams beyond their share, and send malformed ExportRequests. The Agent's flows all arrive, /healthz stays
// fast (measured from its own process), RSS stays bounded, and each attack is counted where docs/grpc.md says.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { EXPORT_PATH } from '../../schemas/antrea-proto.js';
import { agentFlow, encodeMessage } from '../grpc/testing/flows.js';
import { finish, HEALTHZ_P99_MS, metricValue, startProbe, startTarget, tcpFrom } from './testing/harness.js';

const identity = (b: Buffer) => b;
const SERVER_NAME = 'flow-aggregator.flow-aggregator.svc';
const request = (from: number, n: number) => Buffer.from(encodeMessage('ExportRequest', { flows: Array.from({ length: n }, (_, i) => agentFlow(from + i)) }));
const MIB = 1024 * 1024;
const RSS_LIMIT_MIB = 300;

test('gRPC: ping floods, stream-less and handshake-less connections, stream floods and malformed messages leave an Agent unharmed', { timeout: 300_000 }, async (t) => {
  const certs = mkdtempSync(join(tmpdir(), 'flowagg-attack-grpc-'));
  t.after(() => rmSync(certs, { recursive: true, force: true }));
  const target = await startTarget(t, {
    aggregatorTransportProtocol: 'none',
    ingest: {
      tls: { mode: 'directory', dir: certs },
      grpc: { port: 0, maxConnectionsPerPeer: 4, maxStreamsPerPeer: 4, handshakeTimeout: '1500ms', maxConnectionIdle: '1500ms' },
      metrics: { maxExporters: 4 },
    },
  });
  const port = target.ports.grpc!;
  const tls = { ca: readFileSync(join(certs, 'ca.crt')), key: readFileSync(join(certs, 'client.key')), cert: readFileSync(join(certs, 'client.crt')) };
  const credentials = grpc.credentials.createSsl(tls.ca, tls.key, tls.cert);
  const probe = await startProbe(t, target.http);
  const until = Date.now() + 4000;
  const counts = { pings: 0, pingSessions: 0, squatters: 0, streamsRefused: 0, malformed: 0 };
  const sockets = new Set<Socket>();
  const sessions = new Set<http2.ClientHttp2Session>();
  t.after(() => {
    sockets.forEach((s) => s.destroy());
    sessions.forEach((s) => s.destroy());
  });
  const h2From = async (localAddress: string) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ...tls, servername: SERVER_NAME, localAddress } as http2.SecureClientSessionOptions);
    session.on('error', () => {});
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // Refused ones close (or fail) at once; either way the attacker goes on.
    await new Promise<void>((resolve) => {
      session.once('connect', () => resolve());
      session.once('close', () => resolve());
    });
    return session;
  };

  // Pings without pause from 127.0.0.2, a new session each time one is sent away.
  const pinger = async () => {
    while (Date.now() < until) {
      const session = await h2From('127.0.0.2');
      counts.pingSessions++;
      // A stream held open, so that only the pings can end the connection (not ingest.grpc.maxConnectionIdle).
      void rawStream(session, request(0, 1), false);
      while (!session.closed && !session.destroyed && Date.now() < until) {
        const sent = await new Promise<boolean>((resolve) => { if (!session.ping(() => resolve(true))) resolve(false); });
        if (sent) counts.pings++;
        else await sleep(5);
      }
      session.destroy();
      await sleep(20);
    }
  };
  // TLS connections without a stream from 127.0.0.3 and TCP connections without a handshake from 127.0.0.4,
  // up to 10 at a time each (4 are allowed per address).
  const squat = async (address: string, tlsToo: boolean) => {
    while (Date.now() < until) {
      const mine = tlsToo ? [...sessions].filter((s) => s.socket?.localAddress === address).length : [...sockets].filter((s) => s.localAddress === address).length;
      if (mine >= 10) {
        await sleep(50);
        continue;
      }
      counts.squatters++;
      if (tlsToo) await h2From(address);
      else {
        try {
          const s = await tcpFrom(address, port);
          sockets.add(s);
          s.once('close', () => sockets.delete(s));
        } catch { /* refused at accept */ }
      }
      await sleep(10);
    }
  };
  // Streams beyond the peer's share from 127.0.0.5, held open after one flow each (only the refused ones end
  // while the run lasts); malformed messages from 127.0.0.6. Each stream's gRPC status, or 'open' after 500 ms.
  const rawStream = (session: http2.ClientHttp2Session, body: Buffer, halfClose: boolean) =>
    new Promise<string>((resolve) => {
      if (session.closed || session.destroyed) return resolve('closed');
      const stream = session.request({ ':method': 'POST', ':path': EXPORT_PATH, 'content-type': 'application/grpc', te: 'trailers' });
      const timer = setTimeout(() => resolve('open'), 500);
      const done = (code: string) => {
        clearTimeout(timer);
        resolve(code);
      };
      stream.on('error', () => done('error'));
      stream.on('trailers', (trailers) => done(String(trailers['grpc-status'])));
      stream.on('response', (headers) => headers['grpc-status'] !== undefined && done(String(headers['grpc-status'])));
      stream.on('close', () => done('closed'));
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      if (halfClose) stream.end(frame);
      else stream.write(frame);
    });
  const flood = async (address: string, body: Buffer, open: boolean) => {
    while (Date.now() < until) {
      const session = await h2From(address);
      const streams = Array.from({ length: 8 }, () => rawStream(session, body, !open));
      const codes = await Promise.all(streams);
      counts.streamsRefused += codes.filter((c) => c === String(grpc.status.RESOURCE_EXHAUSTED)).length;
      counts.malformed += codes.filter((c) => c === String(grpc.status.INVALID_ARGUMENT)).length;
      await sleep(100);
      session.destroy();
    }
  };
  const MALFORMED = Buffer.concat([request(0, 1), Buffer.from([0x0a, 0x40, 0x12, 0x02])]);
  const attacks = Promise.all([pinger(), squat('127.0.0.3', true), squat('127.0.0.4', false), flood('127.0.0.5', request(0, 1), true), flood('127.0.0.6', MALFORMED, false)]);

  // The Agent: 40 messages of 50 flows over one stream while the attacks run.
  await sleep(500);
  const agent = new grpc.Client(`127.0.0.1:${port}`, credentials, { 'grpc.ssl_target_name_override': SERVER_NAME });
  t.after(() => agent.close());
  const SENT = 40 * 50;
  const status = new Promise<grpc.status>((resolve) => {
    const call = agent.makeClientStreamRequest(EXPORT_PATH, identity, identity, (err) => resolve(err === null ? grpc.status.OK : err.code!));
    void (async () => {
      for (let i = 0; i < 40; i++) {
        call.write(request(i * 50, 50));
        await sleep(75);
      }
      call.end();
    })();
  });
  assert.equal(await status, grpc.status.OK, "the Agent's stream ends with OK");
  await attacks;
  sockets.forEach((s) => s.destroy());
  sessions.forEach((s) => s.destroy());

  const outcome = await finish(target, probe);
  const { probe: p, peakRss, records, metrics } = outcome;
  t.diagnostic(`pings ${counts.pings} over ${counts.pingSessions} sessions, squatters ${counts.squatters}, streams refused ${counts.streamsRefused}, malformed ${counts.malformed}; probe ${JSON.stringify(p)}, peak RSS ${(peakRss / MIB).toFixed(0)} MiB`);
  const mine = records.filter((r) => r.exporterAddress === '127.0.0.1' && r.transport === 'grpc');
  assert.equal(mine.length, SENT, `the Agent sent ${SENT} flows; flows.raw has ${mine.length} of them`);
  assert.ok(p.count > 20, `the probe took ${p.count} samples`);
  assert.equal(p.failures, 0, '/healthz always answered');
  const bound = HEALTHZ_P99_MS * Math.max(1, p.slowdown);
  assert.ok(p.p99 < bound, `/healthz p99 ${p.p99.toFixed(1)} ms (max ${p.max.toFixed(1)} ms) over ${p.count} samples; bound ${bound.toFixed(0)} ms (machine slowdown ${p.slowdown.toFixed(2)})`);
  assert.ok(peakRss < RSS_LIMIT_MIB * MIB, `peak RSS ${(peakRss / MIB).toFixed(0)} MiB, bound ${RSS_LIMIT_MIB} MiB`);
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(metrics, `flowagg_ingest_${name}`, labels);
  assert.ok(m('grpc_refused_total', { reason: 'too_many_pings' }) > 0, 'ping floods were sent away');
  assert.ok(m('grpc_refused_total', { reason: 'per_source' }) > 0, 'connections beyond a peer\'s share were refused');
  assert.ok(m('grpc_refused_total', { reason: 'handshake' }) > 0, 'handshake-less connections timed out');
  assert.ok(m('grpc_refused_total', { reason: 'peer_streams' }) > 0 && counts.streamsRefused > 0, 'streams beyond a peer\'s share were refused');
  assert.ok(m('grpc_streams_ended_total', { code: 'INVALID_ARGUMENT' }) > 0 && counts.malformed > 0, 'malformed messages ended their streams');
  assert.ok(!/exporter="127\.0\.0\.6"/.test(metrics), 'a peer that never sent a valid message has no series of its own');
});
