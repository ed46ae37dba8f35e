import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowView, sortRecords, systemInitMs } from './flow-view.js';
import { parseSoftflowdSummary, softflowdArgs, softflowdVersion, type SoftflowdTimeFormat } from './softflowd.js';
import { exportTraffic } from './softflowd-export.js';
import { conversationMix, renderTraffic } from './traffic.js';
import { tsharkDecodeIpfix } from './tshark.js';
import { requireTools, SOFTFLOWD, TSHARK } from './tools.js';

// What softflowd 1.1.0 prints at the end of a `-r` run (stdout).
const SUMMARY = `Number of active flows: 0
Packets processed: 215
Fragments: 0
Ignored packets: 0 (0 non-IP, 0 too short)
Flows expired: 31 (0 forced)
Flows exported: 31 (46 records) in 3 packets (0 failures)
`;

test('the exit summary gives flows, records and messages exported', () => {
  assert.deepEqual(parseSoftflowdSummary(SUMMARY), {
    packetsProcessed: 215,
    flowsExpired: 31,
    flowsExported: 31,
    recordsExported: 46,
    messagesSent: 3,
    sendFailures: 0,
  });
  assert.throws(() => parseSoftflowdSummary('softflowd v1.1.0 starting data collection\n'), /no "Flows exported" line/);
});

test('arguments: IPFIX, foreground, capture clock, no control socket, pid file in the given directory', () => {
  const args = softflowdArgs(
    { pcapPath: '/x/t.pcap', collector: { address: '::1', port: 4739 }, transport: 'tcp', bidirectional: true, timeFormat: 'nano' },
    '/state',
  );
  assert.deepEqual(args, [
    ...['-r', '/x/t.pcap', '-v', '10', '-n', '[::1]:4739', '-P', 'tcp'],
    ...['-d', '-a', '-c', 'none', '-p', '/state/softflowd.pid', '-b', '-A', 'nano'],
  ]);
  const sysUp = softflowdArgs({ pcapPath: 'p', collector: { address: '127.0.0.1', port: 9 }, timeFormat: 'sysUpTime' }, '/s');
  assert.ok(!sysUp.includes('-A') && !sysUp.includes('-b'));
  assert.equal(sysUp[sysUp.indexOf('-n') + 1], '127.0.0.1:9');
});

test('softflowd names its version', async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  assert.match(await softflowdVersion(), /^\d+\.\d+\.\d+$/);
});

// softflowd's sequence numbers count the records of the message itself (RFC 7011 §3.1: records
// before it), so tshark flags every message after the first; this says nothing about the decoding.
const SEQUENCE_WARNING = /Unexpected flow sequence/;

const traffic = renderTraffic(conversationMix({ count: 60, seed: 7 }));
const cases: { transport: 'udp' | 'tcp'; bidirectional: boolean; timeFormat: SoftflowdTimeFormat }[] = [
  { transport: 'udp', bidirectional: false, timeFormat: 'milli' },
  { transport: 'udp', bidirectional: true, timeFormat: 'milli' },
  { transport: 'tcp', bidirectional: false, timeFormat: 'sysUpTime' },
  { transport: 'tcp', bidirectional: true, timeFormat: 'micro' },
];

for (const c of cases) {
  const name = `softflowd ${c.transport} ${c.bidirectional ? '-b' : 'uni'} ${c.timeFormat}: tshark sees exactly the generated flows`;
  test(name, async (t) => {
    if (!requireTools(t, SOFTFLOWD, TSHARK)) return;
    const exp = await exportTraffic(traffic, { ...c, signal: t.signal });
    assert.equal(exp.run.stats.sendFailures, 0);
    assert.equal(exp.messages.length, exp.run.stats.messagesSent);
    assert.ok(exp.messages.length > 1, 'the capture must fill several export messages');

    const decoded = await tsharkDecodeIpfix(exp.messages.map((m) => m.bytes), { signal: t.signal });
    assert.deepEqual(decoded.warnings.filter((w) => !SEQUENCE_WARNING.test(w)), []);
    let initMs: bigint | undefined;
    const flows = decoded.records.flatMap((r) => {
      initMs = systemInitMs(r.fields) ?? initMs;
      return flowView(r.fields, initMs) ?? [];
    });
    assert.equal(flows.length, exp.run.stats.recordsExported);
    assert.deepEqual(sortRecords(flows), sortRecords(exp.expected));
  });
}
