// Attack test for finding 5 of issue 11: one header-only datagram per observation domain made a Prometheus
// series (and sequence state) each, never removed. Now no series has a domain label, exporters with series of
// their own are capped (the rest share exporter="_overflow"), sequence state is bounded, and a message without
// data sets is not judged at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireTools, SOFTFLOWD } from '../../integration-tests/harness/tools.js';
import { assertUnharmed, finish, metricValue, paced, softflowd, startProbe, startTarget, udpFrom } from './testing/harness.js';
import { dataSet, message, templateSet } from './testing/messages.js';

test('finding 5: series and sequence state stay bounded whatever domains and addresses a sender uses', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, { aggregatorTransportProtocol: ['udp'], ingest: { metrics: { maxExporters: 32 }, sequence: { maxStreams: 512 } } });
  const probe = await startProbe(t, target.http);
  const headers = await udpFrom('127.0.0.2');
  // 100 "exporters" (addresses 127.0.1.x), each sending valid data in 10 domains with sequence numbers that jump.
  const forged = await Promise.all(Array.from({ length: 100 }, (_, i) => udpFrom(`127.0.1.${i + 1}`)));
  t.after(() => {
    headers.close();
    for (const s of forged) s.close();
  });
  const record = Buffer.from([10, 0, 0, 1]);
  const [good] = await Promise.all([
    softflowd(target.ports.udp!, 'udp'),
    paced(5000, 1000, (i) => headers.sendTo(target.ports.udp!, message(10_000 + i, i * 1000, []))),
    paced(2000, 400, (i) => forged[i % 100]!.sendTo(target.ports.udp!, message(Math.floor(i / 100) % 10, i * 7919, [
      templateSet([[256, [[8, 4]]]]),
      dataSet(256, record),
    ]))),
  ]);
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, good, 'udp', 300);
  const text = outcome.metrics;
  const exporters = new Set([...text.matchAll(/exporter="([^"]*)"/g)].map((x) => x[1]));
  assert.ok(!/domain="/.test(text), 'no series is labelled by observation domain');
  assert.ok(exporters.size <= 32 + 1, `${exporters.size} exporter label values: at most 32 and the overflow`);
  assert.ok(exporters.has('_overflow'));
  assert.ok(text.length < 256 * 1024, `/metrics is ${text.length} bytes`);
  assert.ok(metricValue(text, 'flowagg_ingest_sequence_streams_evicted_total') > 0, 'the 1,000 forged streams were bounded to 512');
  assert.equal(metricValue(text, 'flowagg_ingest_sequence_lost_records_total', { exporter: '127.0.0.1' }), 0, 'the good exporter lost nothing');
  assert.equal(metricValue(text, 'flowagg_ingest_sequence_lost_records_total', { exporter: '127.0.0.2' }), 0, 'header-only messages are not judged');
});
