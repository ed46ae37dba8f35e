// Attack tests for findings 1 to 3 of issue 11: template withdrawal storms over TCP, a full UDP template store,
// and memory grown through templates and compiled transcoders. Each runs beside softflowd over UDP, the
// collector in its own process (testing/harness.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireTools, SOFTFLOWD } from '../../integration-tests/harness/tools.js';
import { assertUnharmed, finish, metricValue, paced, softflowd, startProbe, startTarget, tcpFrom, udpFrom, writeAll } from './testing/harness.js';
import { dataSet, manyTemplates, message, templateSet, wideFields, withdrawAllSet } from './testing/messages.js';

const CONFIG = { aggregatorTransportProtocol: ['udp', 'tcp'] };
const ONE_FIELD = [[8, 4]] as const;

test('finding 1: 65,000 templates then "withdraw all" storms on one TCP session cost work in proportion to their bytes', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, CONFIG);
  const probe = await startProbe(t, target.http);
  const attacker = await tcpFrom('127.0.0.2', target.ports.tcp!);
  // 65,000 one-field templates in 64 KB messages, then 40 messages of 16,370 "withdraw all" records each.
  await paced(9, 5, (i) => writeAll(attacker, message(1, 0, [templateSet(manyTemplates(256 + i * 8000, Math.min(8000, 65_000 - i * 8000), ONE_FIELD))])));
  const storm = message(1, 0, [withdrawAllSet(16_370)]);
  const [good] = await Promise.all([
    softflowd(target.ports.udp!, 'udp'),
    paced(40, 20, () => writeAll(attacker, storm)),
  ]);
  assert.ok(!attacker.destroyed, 'withdrawals are legal over TCP: the session stays open');
  const outcome = await finish(target, probe);
  attacker.destroy();
  assertUnharmed(outcome, good, 'udp', 400);
  assert.ok(metricValue(outcome.metrics, 'flowagg_ingest_templates_evicted_total', { reason: 'session' }) > 60_000, 'the session kept at most its limit of templates');
});

test('finding 2: a full UDP template store evicts its oldest template in O(1) and counts it', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, CONFIG);
  const probe = await startProbe(t, target.http);
  const attacker = await udpFrom('127.0.0.2');
  t.after(() => attacker.close());
  // 3,500 new one-field templates per 28 KB datagram (one of 56 KB froze the event loop for 10 to 30 s).
  const datagram = (i: number) => message(1, i, [templateSet(manyTemplates(256 + ((i * 3500) % 58_000), 3500, ONE_FIELD))]);
  const [good] = await Promise.all([
    softflowd(target.ports.udp!, 'udp'),
    paced(20, 4, (i) => attacker.sendTo(target.ports.udp!, datagram(i))),
  ]);
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, good, 'udp', 400);
  assert.ok(metricValue(outcome.metrics, 'flowagg_ingest_templates_evicted_total') > 20 * 3500 - 4096 * 2);
  assert.ok(metricValue(outcome.metrics, 'flowagg_ingest_templates') <= 4096 + 64, 'the attacker\'s session holds at most its limit');
});

test('finding 3: templates and compiled transcoders are bounded per session, per exporter and in total; a flipping template compiles nothing new', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, { ...CONFIG, ingest: { templates: { maxPerSession: 2048, maxPerExporter: 4096, maxLayouts: 16 } } });
  const probe = await startProbe(t, target.http);
  const wide = await tcpFrom('127.0.0.2', target.ports.tcp!);
  const flipper = await tcpFrom('127.0.0.4', target.ports.tcp!);
  const forged = await Promise.all(Array.from({ length: 6 }, () => udpFrom('127.0.0.3')));
  const compiler = await udpFrom('127.0.0.5');
  t.after(() => {
    for (const s of [...forged, compiler]) s.close();
    wide.destroy();
    flipper.destroy();
  });
  // (a) 10,000 templates of 100 fields on one connection: 80 to a message.
  const wideMessages = paced(125, 25, (i) => writeAll(wide, message(1, 0, [templateSet(manyTemplates(256 + i * 80, 80, wideFields(100)))])));
  // (b) six source ports of one address, 1,200 templates of 100 fields each: one exporter's budget.
  const forgedPorts = paced(90, 18, (i) => forged[i % 6]!.sendTo(target.ports.udp!, message(1, i, [templateSet(manyTemplates(256 + Math.floor(i / 6) * 80, 80, wideFields(100, 7)))])));
  // (c) 50 distinct layouts, each with enough records to be compiled, in a cache of 16.
  const record = Buffer.alloc(100 * 4, 1);
  const layouts = paced(50, 10, (i) => compiler.sendTo(target.ports.udp!, message(1, i * 40, [
    templateSet([[256 + i, wideFields(100, 100 + i)]]),
    dataSet(256 + i, Buffer.concat(Array.from({ length: 40 }, () => record))),
  ])));
  // (d) one template redefined back and forth between two layouts, with data each time.
  const small = Buffer.alloc(20 * 4, 2);
  const flips = paced(200, 40, (i) => writeAll(flipper, message(1, 0, [
    templateSet([[256, wideFields(20, 1000 + (i % 2))]]),
    dataSet(256, Buffer.concat(Array.from({ length: 50 }, () => small))),
  ])));
  const [good] = await Promise.all([softflowd(target.ports.udp!, 'udp'), wideMessages, forgedPorts, layouts, flips]);
  assert.ok(!wide.destroyed && !flipper.destroyed, 'nothing the attacker sent was malformed');
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, good, 'udp', 400);
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(outcome.metrics, `flowagg_ingest_${name}`, labels);
  assert.ok(m('templates_evicted_total', { reason: 'session' }) >= 10_000 - 2048, 'the wide session kept at most its 2,048');
  assert.ok(m('templates_evicted_total', { reason: 'exporter' }) >= 7200 - 4096, `the forged ports shared one exporter budget: ${m('templates_evicted_total', { reason: 'exporter' })} evicted, ${m('dropped_messages_total')} messages dropped, ${m('decode_errors_total')} errors`);
  assert.ok(m('transcoder_layouts') <= 16);
  assert.ok(m('transcoder_evictions_total') >= 50 - 16 - 4);
  assert.ok(m('transcoder_compilations_total') <= 50 + 2 + 8, `${m('transcoder_compilations_total')} compilations: each layout once, the flipping template's two once each`);
  assert.equal(outcome.records.filter((r) => r.exporterAddress === '127.0.0.4').length, 200 * 50, 'every flipped record was written, with its layout');
});
