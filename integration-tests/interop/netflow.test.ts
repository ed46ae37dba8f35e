// Interop (issue 20): softflowd exports generated traffic as NetFlow v9 (sysUpTime and absolute-ms times) and
// v5. On the same datagrams, flowagg's decoder gives tshark's records field by field (v9 types and v5's record
// read as the IANA elements they map to), the FlowRecords ingest makes have the absolute times tshark's header
// and relative times give, nfdump (nfcapd collecting the same stream) prints every flow with the FlowRecord's
// values, field by field, and the flows are those put into the capture.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeNetflow, type DataRecord, TemplateStore } from '../../lib/ipfix/index.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { type FlowRecord, flowRecordReader } from '../../schemas/flow-record.js';
import { RunWriter } from '../../ingest/records/run-writer.js';
import { recordsOfRuns } from '../../lib/log/record-runs.js';
import { TranscoderCache } from '../../ingest/records/transcoder-cache.js';
import { ExporterSession } from '../../ingest/session.js';
import { transcodeMessage } from '../../ingest/transcode-message.js';
import { flowView, sortRecords } from '../harness/flow-view.js';
import { type NfdumpFlow, nfdumpMessages } from '../harness/ipfix-peers.js';
import type { SoftflowdTimeFormat } from '../harness/softflowd.js';
import { exportTraffic, type TrafficExport } from '../harness/softflowd-export.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';
import { tsharkDecodeIpfix, tsharkFlows, tsharkFlowTimes } from '../harness/tshark.js';
import { NFCAPD, NFDUMP, requireTools, SOFTFLOWD, TSHARK } from '../harness/tools.js';
import { type ComparableRecord, fromDecoded } from './comparable.js';

const traffic = renderTraffic(conversationMix({ count: 150, seed: 3 }));
const PADDING = 210;

const CASES: readonly { version: 5 | 9; timeFormat: SoftflowdTimeFormat }[] = [
  { version: 9, timeFormat: 'sysUpTime' },
  { version: 9, timeFormat: 'milli' },
  { version: 5, timeFormat: 'sysUpTime' },
];

interface Decoded {
  readonly exp: TrafficExport;
  /** flowagg's codec, record by record, in message order (v5's pads left out: tshark prints them apart). */
  readonly ours: ComparableRecord[];
  /** What ingest writes to flows.raw for the same datagrams, in the same order. */
  readonly flows: FlowRecord[];
}

async function decodeExport(version: 5 | 9, timeFormat: SoftflowdTimeFormat, signal: AbortSignal): Promise<Decoded> {
  const exp = await exportTraffic(traffic, { transport: 'udp', bidirectional: false, timeFormat, version, signal });
  assert.equal(exp.run.stats.sendFailures, 0);
  assert.equal(exp.messages.length, exp.run.stats.messagesSent);
  const store = new TemplateStore({ transport: 'udp' });
  const session = new ExporterSession('udp', exp.messages[0]!.from, { templateTtlMs: 1_800_000, now: () => 0 }, version === 9 ? 'netflow_v9' : 'netflow_v5');
  const cache = new TranscoderCache({ maxLayouts: 16, compileAfterRecords: 16 });
  const reader = flowRecordReader();
  const ours: ComparableRecord[] = [];
  const flows: FlowRecord[] = [];
  exp.messages.forEach((m, i) => {
    const d = decodeNetflow(m.bytes, store);
    assert.deepEqual(d.errors, []);
    ours.push(...d.records.map((r) => fromDecoded(i + 1, withoutPads(r))));
    const t = transcodeMessage(session, m.bytes, new RunWriter(), 0, cache);
    assert.deepEqual(t.errors, []);
    flows.push(...recordsOfRuns(t.runs).map((r) => reader.decode(Buffer.from(r.value!))));
  });
  return { exp, ours, flows };
}

function withoutPads(r: DataRecord): DataRecord {
  const keep = r.template.fields.flatMap((f, i) => (f.ie.id === PADDING ? [] : [i]));
  return { template: { ...r.template, fields: keep.map((i) => r.template.fields[i]!) }, values: keep.map((i) => r.values[i]!) };
}

const untimed = <T extends { startUs: number; endUs: number }>(r: T) => ({ ...r, startUs: 0, endUs: 0 });

describe('NetFlow from softflowd, against tshark and nfdump', () => {
  for (const { version, timeFormat } of CASES) {
    it(`softflowd -v ${version} (${timeFormat}): flowagg decodes what tshark decodes, record by record, and the flows of the capture`, async (t) => {
      if (!requireTools(t, SOFTFLOWD, TSHARK)) return;
      const { exp, ours, flows } = await decodeExport(version, timeFormat, t.signal);
      const theirs = await tsharkDecodeIpfix(exp.messages.map((m) => m.bytes), { signal: t.signal });
      assert.deepEqual(theirs.warnings, []);
      assert.equal(ours.length, theirs.records.length, 'same number of data records');
      theirs.records.forEach((r, i) => assert.deepEqual(ours[i], r, `record ${i + 1} (packet ${r.frame}, template ${r.templateId})`));
      assert.equal(flows.length, exp.run.stats.recordsExported, 'flow records = records softflowd says it exported');
      const theirFlows = tsharkFlows(theirs);
      assert.equal(theirFlows.length, flows.length);
      flows.forEach((f, i) => assert.deepEqual([f.flowStartMilliseconds, f.flowEndMilliseconds], tsharkFlowTimes(theirs, theirFlows[i]!), `flow ${i + 1}: absolute times`));
      // The flows put into the capture (times aside: v9's header says unix time in whole seconds; ingest's test checks them).
      const views = ours.flatMap((r) => flowView(r.fields, 0n) ?? []).map(untimed);
      const expected = exp.expected.map(untimed);
      assert.deepEqual(sortRecords(version === 5 ? views.map((v) => ({ ...v, ipVersion: 4 as const })) : views), sortRecords(expected));
    });

    it(`softflowd -v ${version} (${timeFormat}): nfcapd collects the same stream and nfdump prints every flow with the FlowRecord's values`, async (t) => {
      if (!requireTools(t, SOFTFLOWD, NFCAPD, NFDUMP)) return;
      const { exp, flows } = await decodeExport(version, timeFormat, t.signal);
      const printed = await nfdumpMessages(exp.messages.map((m) => m.bytes), t.signal);
      assert.equal(printed.length, flows.length);
      const ours = new Map(flows.map((f) => [identity(nfdumpView(f)), f]));
      for (const p of printed) {
        const f = ours.get(identity(p));
        assert.ok(f, `nfdump's flow ${identity(p)} is one of flowagg's`);
        assert.deepEqual(compared(p), compared(nfdumpView(f)), identity(p));
      }
    });
  }
});

const address = (b: Buffer | null) => (b === null ? undefined : b.length === 4 ? formatIpv4(b, 0) : formatIpv6(b, 0));
const FLAGS = 'CEUAPRSF';
/** nfdump prints TCP flags as "...AP.SF" (CWR ECE URG ACK PSH RST SYN FIN). */
const flagText = (bits: number) => [...FLAGS].map((c, i) => (bits & (0x80 >> i) ? c : '.')).join('');
const isoMs = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString().replace('Z', ''));

/** nfdump's keys about the flow itself; its own bookkeeping (type, export_sysid, received, label, nets) is not the exporter's. */
const NFDUMP_OWN = new Set(['type', 'export_sysid', 'received', 'label', 'src_net', 'dst_net']);

/** A FlowRecord as nfdump prints a flow (keys absent where nfdump prints none). */
function nfdumpView(f: FlowRecord): NfdumpFlow {
  const v6 = f.sourceIPv6Address !== null;
  const icmp = f.protocolIdentifier === 1 || f.protocolIdentifier === 58;
  // v5 has no ICMP element: its type and code are in the destination port. nfdump 1.7.1 does not read
  // icmpTypeCodeIPv6 (139) from v9 templates: it prints 0/0 for ICMPv6 flows.
  const icmpTypeCode = f.protocolIdentifier === 58 ? 0 : Number(f.icmpTypeCodeIPv4 ?? f.destinationTransportPort ?? 0);
  const view: Record<string, string | number | undefined> = {
    // nfdump flags a sampled flow; softflowd announces "1 in 1" (v9) or nothing (v5).
    sampled: Number(f.samplingInterval ?? 1) > 1 ? 1 : 0,
    first: isoMs(f.flowStartMilliseconds), last: isoMs(f.flowEndMilliseconds),
    in_packets: f.packetDeltaCount as number, in_bytes: f.octetDeltaCount as number, proto: f.protocolIdentifier ?? undefined,
    ...(icmp ? { icmp_type: icmpTypeCode >> 8, icmp_code: icmpTypeCode & 0xff } : { tcp_flags: flagText(Number(f.tcpControlBits ?? 0)), src_port: f.sourceTransportPort ?? undefined, dst_port: f.destinationTransportPort ?? undefined }),
    src_tos: Number(f.ipClassOfService ?? 0),
    [v6 ? 'src6_addr' : 'src4_addr']: address(v6 ? f.sourceIPv6Address : f.sourceIPv4Address),
    [v6 ? 'dst6_addr' : 'dst4_addr']: address(v6 ? f.destinationIPv6Address : f.destinationIPv4Address),
    ip4_router: f.exporterAddress,
  };
  // v9's template carries these; nfdump prints them from it (v5's zeros it leaves out).
  if (f.transport === 'netflow_v9') {
    Object.assign(view, {
      input_snmp: f.ingressInterface as number, output_snmp: f.egressInterface as number, src_mask: Number(f.sourceIPv4PrefixLength ?? f.sourceIPv6PrefixLength ?? 0),
      dst_mask: Number(f.destinationIPv4PrefixLength ?? f.destinationIPv6PrefixLength ?? 0), fwd_status: 0, direction: f.flowDirection as number, dst_tos: 0,
    });
  }
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)) as NfdumpFlow;
}

function compared(flow: NfdumpFlow): NfdumpFlow {
  return Object.fromEntries(Object.entries(flow).filter(([k]) => !NFDUMP_OWN.has(k)).sort(([a], [b]) => a.localeCompare(b)));
}

function identity(f: NfdumpFlow): string {
  return [f.src4_addr ?? f.src6_addr, f.dst4_addr ?? f.dst6_addr, f.proto, f.src_port ?? f.icmp_type, f.dst_port ?? f.icmp_code, f.first].join(' ');
}
