// Attack test for the NetFlow collector (issue 20): the attacks of issue 11 (template floods, forged sources,
// many layouts, malformed and header-only input) sent as NetFlow v9 and v5 to the NetFlow port, from other
// loopback addresses, while softflowd exports NetFlow v9 to the same port: the same bounds hold (templates per
// source, sessions, sequence streams, exporter labels, compiled transcoders, the UDP backlog), every record
// softflowd exported is in flows.raw, /healthz stays fast and memory bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireTools, SOFTFLOWD } from '../../integration-tests/harness/tools.js';
import { type NetflowTemplate, v5Packet, v9DataSet, v9Packet, v9TemplateSet } from '../../lib/ipfix/testing/netflow-packets.js';
import { assertUnharmed, finish, metricValue, paced, softflowd, startProbe, startTarget, udpFrom } from './testing/harness.js';

const LIMITS = { templates: { maxPerSession: 1024, maxPerExporter: 1024, maxLayouts: 16 }, udp: { maxSessions: 48 }, sequence: { maxStreams: 256 }, metrics: { maxExporters: 32 } };
const header = (sourceId: number, sequence: number) => ({ sysUpTime: 3_600_000, unixSecs: 1_700_000_000, sequence, sourceId });
const oneField = (id: number): NetflowTemplate => ({ id, fields: [{ type: 8, length: 4 }] });
/** A layout of `n` fields (an address, then counters of 4 bytes), distinct per `variant`. */
const wide = (id: number, n: number, variant: number): NetflowTemplate => ({ id, fields: Array.from({ length: n }, (_, i) => (i === 0 ? { type: 8, length: 4 } : { type: 100 + ((i + variant) % 120), length: 4 })) });

test('NetFlow: template floods, forged sources and Source IDs, many layouts, malformed and header-only packets stay bounded beside softflowd -v 9', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, { aggregatorTransportProtocol: 'none', ingest: { netflow: { enabled: true, port: 0 }, ...LIMITS } });
  const port = target.ports.netflow!;
  const probe = await startProbe(t, target.http);
  const flooder = await udpFrom('127.0.0.2');
  const forged = await Promise.all(Array.from({ length: 40 }, (_, i) => udpFrom(`127.0.1.${i + 1}`)));
  const compiler = await udpFrom('127.0.0.5');
  const garbler = await udpFrom('127.0.0.6');
  const headers = await udpFrom('127.0.0.7');
  const v5Senders = await Promise.all(Array.from({ length: 60 }, (_, i) => udpFrom(`127.0.2.${i + 1}`)));
  t.after(() => {
    for (const s of [flooder, ...forged, compiler, garbler, headers, ...v5Senders]) s.close();
  });
  const flow = { src: '10.9.0.1', dst: '10.9.0.2', packets: 1, octets: 64, first: 1000, last: 2000, srcPort: 1, dstPort: 2, protocol: 17 };
  const record = Buffer.from([10, 0, 0, 1]);
  const [good] = await Promise.all([
    softflowd(port, 'udp', 200, 23, 9),
    // 3,000 new one-field templates a packet, over 10 Source IDs of one address.
    paced(30, 6, (i) => flooder.sendTo(port, v9Packet(header(i % 10, i), [v9TemplateSet(Array.from({ length: 3000 }, (_, k) => oneField(256 + ((i * 3000 + k) % 60_000))))]))),
    // 40 addresses, 10 Source IDs each (400 sequence streams), valid templates and data with sequence numbers that jump.
    paced(2000, 400, (i) => forged[i % 40]!.sendTo(port, v9Packet(header(Math.floor(i / 40) % 10, i * 7919), [v9TemplateSet([oneField(256)]), v9DataSet(256, [record])]))),
    // 50 layouts of 60 fields, each with enough records to be compiled, in a cache of 16.
    paced(50, 10, (i) => compiler.sendTo(port, v9Packet(header(0, i), [v9TemplateSet([wide(256 + i, 60, i)]), v9DataSet(256 + i, Array.from({ length: 20 }, () => Buffer.alloc(240, 1)))]))),
    // Malformed: cut headers, unknown versions, v5 counts beyond the packet, v9 FlowSets that overrun it.
    paced(2000, 400, (i) => {
      const bad = [Buffer.from([0, 9, 0, 1]), Buffer.from([0, 7, 0, 1, 0, 0, 0, 0]), v5Packet({ sysUpTime: 1, unixSecs: 1, unixNsecs: 0, flowSequence: i, engineType: 0, engineId: 0, sampling: 0, count: 30 }, []),
        Buffer.concat([v9Packet(header(1, i), []), Buffer.from([1, 0, 0xff, 0xff, 0, 0, 0, 0])])][i % 4]!;
      return garbler.sendTo(port, bad);
    }),
    // Header-only v9 packets, one Source ID each.
    paced(3000, 600, (i) => headers.sendTo(port, v9Packet(header(10_000 + i, i * 1000), []))),
    // 60 more addresses sending v5: more sessions than the table holds.
    paced(600, 200, (i) => v5Senders[i % 60]!.sendTo(port, v5Packet({ sysUpTime: 5000, unixSecs: 1_700_000_000, unixNsecs: 0, flowSequence: i, engineType: 0, engineId: i % 7, sampling: 0 }, [flow]))),
  ]);
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, good, 'netflow_v9', 400);
  const text = outcome.metrics;
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(text, `flowagg_ingest_${name}`, labels);
  // Each packet's 3,000 templates meet a session of at most 1,024 (when the v5 senders push the flooder's session out
  // of the table, its templates go with it, uncounted).
  assert.ok(m('templates_evicted_total', { reason: 'session' }) >= 3000 - 1024, `${m('templates_evicted_total', { reason: 'session' })} templates evicted`);
  // The flooder's 1,024, ten Source IDs' one template in each forged session, the layouts, softflowd's.
  assert.ok(m('templates') <= 1024 + 40 * 10 + 50 + 8, `${m('templates')} templates held`);
  assert.ok(m('transcoder_layouts') <= 16);
  assert.ok(m('transcoder_compilations_total') <= 50 + 8, `${m('transcoder_compilations_total')} compilations: each layout once (the 50, softflowd's four, the forged one)`);
  assert.ok(m('sessions', { transport: 'udp' }) <= 48, 'UDP sessions (IPFIX and NetFlow) bounded');
  assert.ok(outcome.records.filter((r) => r.transport === 'netflow_v5').length > 0, 'the v5 senders\' records were taken, their sessions coming and going');
  assert.ok(m('sequence_streams_evicted_total') > 0, 'the 400 forged streams were bounded to 256');
  const exporters = new Set([...text.matchAll(/exporter="([^"]*)"/g)].map((x) => x[1]));
  assert.ok(exporters.size <= 32 + 1 && exporters.has('_overflow'), `${exporters.size} exporter label values`);
  assert.ok(m('decode_errors_total', { reason: 'FLOWAGG_ERR_NETFLOW_TRUNCATED_HEADER' }) > 0);
  assert.ok(m('decode_errors_total', { reason: 'FLOWAGG_ERR_IPFIX_BAD_VERSION' }) > 0);
  assert.ok(m('decode_errors_total', { reason: 'FLOWAGG_ERR_NETFLOW_BAD_COUNT' }) > 0);
  assert.ok(m('dropped_messages_total', { reason: 'malformed' }) > 0);
  assert.equal(m('sequence_lost_packets_total', { exporter: '127.0.0.1' }), 0, 'softflowd lost nothing');
  assert.equal(m('sequence_lost_packets_total', { exporter: '127.0.0.7' }), 0, 'header-only packets are not judged');
  assert.equal(outcome.records.filter((r) => r.exporterAddress === '127.0.0.5').length, 50 * 20, 'every record of the 50 layouts was written');
});
