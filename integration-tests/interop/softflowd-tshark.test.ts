// Interop (issue 2): softflowd exports generated traffic as IPFIX (-v 10, with and without -b biflows,
// in every -A time format, over UDP and TCP); flowagg's decoder must give the same records as tshark
// on the same bytes, field by field, and those records must be the flows put into the capture.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeMessage, type IpfixError, TemplateStore } from '../../lib/ipfix/index.js';
import { flowView, sortRecords, systemInitMs } from '../harness/flow-view.js';
import type { SoftflowdTimeFormat } from '../harness/softflowd.js';
import { exportTraffic } from '../harness/softflowd-export.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';
import { tsharkDecodeIpfix } from '../harness/tshark.js';
import { requireTools, SOFTFLOWD, TSHARK } from '../harness/tools.js';
import { type ComparableRecord, fromDecoded, fromTshark } from './comparable.js';

// softflowd numbers messages by the records sent including the message's own (RFC 7011 §3.1 says
// before it), so tshark flags each later message; decoding is unaffected.
const SEQUENCE_WARNING = /Unexpected flow sequence/;

// 150 conversations: IPv4 and IPv6, TCP, UDP and ICMP, one-way and two-way, several ToS values,
// enough records to fill many export messages and cross template refreshes.
const traffic = renderTraffic(conversationMix({ count: 150, seed: 2 }));

interface Case {
  readonly transport: 'udp' | 'tcp';
  readonly bidirectional: boolean;
  readonly timeFormat: SoftflowdTimeFormat;
}

const timeFormats: SoftflowdTimeFormat[] = ['milli', 'sysUpTime', 'sec', 'micro', 'nano'];
const cases: Case[] = [
  ...timeFormats.flatMap((timeFormat) => [false, true].map((bidirectional) => ({ transport: 'udp' as const, bidirectional, timeFormat }))),
  { transport: 'tcp', bidirectional: false, timeFormat: 'milli' },
  { transport: 'tcp', bidirectional: true, timeFormat: 'nano' },
];

for (const c of cases) {
  test(`softflowd -v 10 ${c.bidirectional ? '-b ' : ''}(${c.timeFormat}) over ${c.transport}: flowagg decodes what tshark decodes`, async (t) => {
    if (!requireTools(t, SOFTFLOWD, TSHARK)) return;
    const exp = await exportTraffic(traffic, { ...c, signal: t.signal });
    assert.equal(exp.run.stats.sendFailures, 0);
    assert.equal(exp.messages.length, exp.run.stats.messagesSent);

    // One template store for the whole transport session, as a collector keeps it.
    const store = new TemplateStore({ transport: c.transport });
    const ours: ComparableRecord[] = [];
    const errors: IpfixError[] = [];
    const headers = exp.messages.map((m, i) => {
      const decoded = decodeMessage(m.bytes, store);
      errors.push(...decoded.errors);
      ours.push(...decoded.records.map((r) => fromDecoded(i + 1, r)));
      return decoded.header;
    });
    assert.deepEqual(errors, []);

    const theirs = await tsharkDecodeIpfix(exp.messages.map((m) => m.bytes), { signal: t.signal });
    assert.deepEqual(theirs.warnings.filter((w) => !SEQUENCE_WARNING.test(w)), []);
    assert.deepEqual(
      headers.map((h) => ({ version: h.version, exportTime: h.exportTime, sequenceNumber: h.sequenceNumber, observationDomainId: h.observationDomainId })),
      theirs.headers.map((h) => ({ version: 10, ...h })),
    );
    assert.equal(ours.length, theirs.records.length, 'same number of data records');
    theirs.records.forEach((r, i) => assert.deepEqual(ours[i], fromTshark(r, ours[i]), `record ${i + 1} (message ${r.frame}, template ${r.templateId})`));

    // And they are the flows in the capture.
    let initMs: bigint | undefined;
    const flows = ours.flatMap((r) => {
      initMs = systemInitMs(r.fields) ?? initMs;
      return flowView(r.fields, initMs) ?? [];
    });
    assert.equal(flows.length, exp.run.stats.recordsExported, 'flow records = records softflowd says it exported');
    assert.deepEqual(sortRecords(flows), sortRecords(exp.expected));
  });
}
