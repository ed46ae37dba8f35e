// Attack test for finding 4 of issue 11: connection slots held by clients that never send IPFIX (a partial
// message on the TCP port, no ClientHello on the TLS port). Time limits free the slots, a few slots are kept for
// exporters that have sent valid IPFIX before, and no address may hold more than its share.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { requireTools, SOFTFLOWD } from '../../integration-tests/harness/tools.js';
import { assertUnharmed, finish, metricValue, softflowd, startProbe, startTarget, tcpFrom, together } from './testing/harness.js';

test('finding 4: idle, partial-message and TLS handshake squatters lose their slots; a known exporter always gets one', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const certs = mkdtempSync(join(tmpdir(), 'flowagg-attack-tls-'));
  t.after(() => rmSync(certs, { recursive: true, force: true }));
  const target = await startTarget(t, {
    aggregatorTransportProtocol: ['tcp', 'tls'],
    ingest: {
      tlsPort: 0,
      tls: { mode: 'directory', dir: certs, extraSANs: ['127.0.0.1'] },
      tcp: { maxConnections: 64, maxConnectionsPerSource: 16, reservedForKnownSources: 16, firstMessageTimeout: '1500ms', partialMessageTimeout: '1500ms', handshakeTimeout: '1500ms' },
    },
  });
  const probe = await startProbe(t, target.http);
  // softflowd's first export makes 127.0.0.1 a known exporter.
  const first = await softflowd(target.ports.tcp!, 'tcp', 50, 5);
  // Squatters from new addresses, kept at up to 20 per address (16 are allowed), for four seconds: on the TCP
  // port each sends 10 bytes of a message header and nothing more, or a header-only message and then that;
  // on the TLS port nothing at all.
  const open = new Set<Socket>();
  let opened = 0;
  let refusedAtOnce = 0;
  const HEADER_ONLY = Buffer.from([0, 10, 0, 16, 0x65, 0x53, 0xf1, 0x00, 0, 0, 0, 0, 0, 0, 0, 1]);
  const PARTIAL = Buffer.from([0, 10, 0x40, 0, 0, 0, 0, 0, 0, 0]);
  const squat = async (address: string, port: number, send: Buffer | undefined, until: number) => {
    while (Date.now() < until) {
      const mine = [...open].filter((s) => s.localAddress === address).length;
      if (mine >= 20) {
        await sleep(50);
        continue;
      }
      try {
        const s = await tcpFrom(address, port);
        opened++;
        open.add(s);
        s.once('close', () => open.delete(s));
        if (send !== undefined) s.write(send);
      } catch {
        refusedAtOnce++;
      }
      await sleep(5);
    }
  };
  const until = Date.now() + 4000;
  const squatters = Promise.all([
    squat('127.0.0.2', target.ports.tcp!, PARTIAL, until),
    squat('127.0.0.3', target.ports.tcp!, Buffer.concat([HEADER_ONLY, PARTIAL]), until),
    squat('127.0.0.4', target.ports.tls!, undefined, until),
    squat('127.0.0.5', target.ports.tls!, undefined, until),
  ]);
  await sleep(1000);
  const second = await softflowd(target.ports.tcp!, 'tcp', 200, 6);
  await squatters;
  for (const s of open) s.destroy();
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, together(first, second), 'tcp', 300);
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(outcome.metrics, `flowagg_ingest_${name}`, labels);
  assert.ok(m('connections_refused_total', { reason: 'reserved' }) + m('connections_refused_total', { reason: 'per_source' }) > 0, 'the squatters filled every slot open to them');
  assert.ok(m('connections_closed_total', { reason: 'first_message' }) > 0, 'connections without a message timed out');
  assert.ok(m('connections_closed_total', { reason: 'partial_message' }) > 0, 'partial messages timed out');
  assert.ok(m('tls_handshake_failures_total') > 0, 'silent TLS clients timed out');
  assert.ok(opened > 64, `${opened} squatter connections over the run: slots were freed and taken again`);
  t.diagnostic(`squatter connections ${opened}, refused ${refusedAtOnce}`);
});
