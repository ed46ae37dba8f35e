// What the IPFIX exporter sends, decoded by three independent IPFIX implementations: tshark (the
// capture of the export), ipfixDump (the message stream as an IPFIX file) and nfcapd/nfdump (receiving
// the messages over UDP), in Aggregate and Proxy mode, over UDP and over TCP. Every record must come
// out with the values of the FlowRecord it was made from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import type { FieldValue, TemplateField } from '../../lib/ipfix/types.js';
import { ipfixDumpValue } from '../../lib/ipfix/testing/ipfixdump.js';
import { lookupElement } from '../../lib/ipfix/registry.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import type { Mode } from '../../schemas/mode.js';
import { batchOf, decodeCollected, ipfixExporter } from '../../exporters/ipfix/testing/exporter.js';
import { numberedRecord } from '../../exporters/testing/records.js';
import { type CollectedMessage, startTcpCollector, startUdpCollector } from '../harness/collector.js';
import { ipfixDumpMessages, nfdumpMessages } from '../harness/ipfix-peers.js';
import { tsharkDecodeIpfix } from '../harness/tshark.js';
import { IPFIXDUMP, NFCAPD, NFDUMP, TSHARK, requireTools } from '../harness/tools.js';

const CLUSTER_ID = 'interop-cluster';
const COUNT = 60;

const hex = (s: string) => Buffer.from(s, 'hex');

/** Records with every element set (tshark prints nothing for an empty string), every 4th one IPv6. */
function records(mode: Mode): FlowRecord[] {
  return Array.from({ length: COUNT }, (_, i) => {
    const v6 = i % 4 === 3;
    return numberedRecord(i, {
      ...(v6 && {
        sourceIPv4Address: null, destinationIPv4Address: null,
        sourceIPv6Address: hex(`fd00000000000000000000000001${(0x1000 + i).toString(16)}`), destinationIPv6Address: hex('fd000000000000000000000000020001'),
        proxySnatIPv6: hex('fd000000000000000000000000030001'), destinationClusterIPv6: hex('fd000000000000000000000000040001'), destinationServiceIPv6: hex('fd000000000000000000000000050001'),
      }),
      ...(!v6 && { proxySnatIPv4: Buffer.from([10, 3, 0, 1]), destinationClusterIPv4: Buffer.from([10, 96, 0, 10]), destinationServiceIPv4: Buffer.from([10, 96, 0, 11]) }),
      proxySnatPort: 30000 + i,
      ingressNetworkPolicyName: 'allow-web', ingressNetworkPolicyNamespace: 'perf', ingressNetworkPolicyType: 1, ingressNetworkPolicyRuleName: 'rule-1', ingressNetworkPolicyRuleAction: 1,
      egressNetworkPolicyName: 'acnp-egress', egressNetworkPolicyNamespace: 'perf', egressNetworkPolicyType: 3, egressNetworkPolicyRuleName: 'rule-2', egressNetworkPolicyRuleAction: 1,
      egressName: 'egress-a', egressIP: '172.18.0.1', egressNodeName: 'node-c',
      sourcePodLabels: '{"app":"client"}', destinationPodLabels: '{"app":"server"}',
      ...(mode === 'Aggregate'
        ? {
            octetDeltaCountFromSourceNode: i + 1, octetDeltaCountFromDestinationNode: i + 2, octetTotalCountFromSourceNode: 100 * i + 1, octetTotalCountFromDestinationNode: 100 * i + 2,
            packetDeltaCountFromSourceNode: i + 3, packetDeltaCountFromDestinationNode: i + 4, packetTotalCountFromSourceNode: 10 * i + 1, packetTotalCountFromDestinationNode: 10 * i + 2,
            reverseOctetDeltaCountFromSourceNode: i + 5, reverseOctetDeltaCountFromDestinationNode: i + 6, reverseOctetTotalCountFromSourceNode: 50 * i + 1, reverseOctetTotalCountFromDestinationNode: 50 * i + 2,
            reversePacketDeltaCountFromSourceNode: i + 7, reversePacketDeltaCountFromDestinationNode: i + 8, reversePacketTotalCountFromSourceNode: 5 * i + 1, reversePacketTotalCountFromDestinationNode: 5 * i + 2,
            flowEndSecondsFromSourceNode: 1_700_000_004 + i, flowEndSecondsFromDestinationNode: 1_700_000_005 + i,
            throughput: 8000 * i + 1, throughputFromSourceNode: 8000 * i + 2, throughputFromDestinationNode: 8000 * i + 3,
            reverseThroughput: 4000 * i + 1, reverseThroughputFromSourceNode: 4000 * i + 2, reverseThroughputFromDestinationNode: 4000 * i + 3,
          }
        : {
            originalObservationDomainId: 1000 + i, originalExporterIPv4Address: Buffer.from([192, 0, 2, i]),
            originalExporterIPv6Address: hex('20010db8000000000000000000000001'), flowDirection: i % 2,
          }),
    });
  });
}

/** The value an element must have for record r, in the codec's value model (addresses as text). */
function expected(name: string, r: FlowRecord): FieldValue {
  if (name === 'flowStartSeconds') return Math.floor(r.flowStartMilliseconds! / 1000);
  if (name === 'flowEndSeconds') return Math.floor(r.flowEndMilliseconds! / 1000);
  if (name === 'clusterId') return CLUSTER_ID;
  const v = r[name];
  if (Buffer.isBuffer(v)) return v.length === 4 ? formatIpv4(v, 0) : v.length === 16 && !name.endsWith('UUID') ? formatIpv6(v, 0) : v;
  assert.ok(typeof v === 'number' || typeof v === 'string', `record field ${name} is set`);
  return v;
}

/** The element's bytes as tshark prints an element it has no dictionary for: "aa:bb:...". */
function hexBytes(name: string, type: string, length: number, v: FieldValue): string {
  let b: Buffer;
  if (typeof v === 'string' && type === 'string') b = Buffer.from(v, 'utf8');
  else if (type === 'ipv4Address') b = Buffer.from((v as string).split('.').map(Number));
  else if (type === 'ipv6Address') b = Buffer.from(v6Bytes(v as string));
  else {
    b = Buffer.alloc(length);
    let n = BigInt(v as number);
    for (let k = length - 1; k >= 0; k--, n >>= 8n) b[k] = Number(n & 0xffn);
  }
  assert.ok(b.length > 0 || type === 'string', `${name}: bytes`);
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

function v6Bytes(text: string): number[] {
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
}

/** The messages a collector received from the exporter; the collector is closed when they are all in. */
async function exportTo(mode: Mode, transport: 'udp' | 'tcp', input: readonly FlowRecord[]): Promise<readonly CollectedMessage[]> {
  const collector = transport === 'udp' ? await startUdpCollector() : await startTcpCollector();
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}:${transport}`, ...(transport === 'udp' && { maxIPFIXMsgSize: 1400 }) }, { mode, clusterID: CLUSTER_ID });
  await exporter.start();
  await exporter.deliver(batchOf(input.slice(0, COUNT / 2)), new AbortController().signal);
  await exporter.deliver(batchOf(input.slice(COUNT / 2)), new AbortController().signal);
  while (decodeCollected(collector.messages, transport).records.length < COUNT) await collector.waitForMessages(collector.messages.length + 1, 30_000);
  await exporter.stop();
  await collector.close();
  return collector.messages;
}

const byPort = (input: readonly FlowRecord[]) => new Map(input.map((r) => [Number(r.sourceTransportPort), r]));

for (const mode of ['Aggregate', 'Proxy'] as const) {
  for (const transport of ['udp', 'tcp'] as const) {
    describe(`IPFIX export, ${mode} mode over ${transport.toUpperCase()}, decoded by independent tools`, () => {
      const input = records(mode);
      const ports = byPort(input);
      let collected: Promise<readonly CollectedMessage[]> | undefined;
      const messages = async () => {
        collected ??= exportTo(mode, transport, input);
        return (await collected).map((m) => m.bytes);
      };

      it('tshark decodes every record with every element, including Antrea\'s as raw bytes', async (t) => {
        if (!requireTools(t, TSHARK)) return;
        const decoded = await tsharkDecodeIpfix(await messages(), { signal: t.signal });
        assert.deepEqual(decoded.warnings, []);
        assert.equal(decoded.records.length, COUNT);
        for (const rec of decoded.records) {
          const port = rec.fields.find((f) => f.pen === 0 && f.id === 7)!.value;
          const r = ports.get(Number(port))!;
          assert.ok(r, `record with source port ${port}`);
          assert.equal(rec.templateId, r.sourceIPv6Address !== null ? 257 : 256);
          for (const f of rec.fields) {
            const ie = lookupElement(f.pen, f.id);
            const want = expected(ie.name, r);
            const at = `port ${port} ${ie.name}`;
            if (f.pen === 56506) assert.equal(f.value, hexBytes(ie.name, ie.type, f.length, want), at);
            else if (ie.type === 'dateTimeSeconds') assert.equal(f.value, BigInt(want as number) * 1_000_000_000n, at);
            else if (typeof f.value === 'bigint') assert.equal(f.value, BigInt(want as number), at);
            else assert.equal(f.value, want, at);
          }
        }
      });

      it('ipfixDump decodes every record with every element', async (t) => {
        if (!requireTools(t, IPFIXDUMP)) return;
        const dump = await ipfixDumpMessages(await messages(), t.signal);
        assert.equal(dump.records.length, COUNT);
        for (const rec of dump.records) {
          const port = rec.fields.find((f) => f.pen === 0 && f.id === 7)!.value;
          const r = ports.get(Number(port))!;
          assert.ok(r, `record with source port ${port}`);
          for (const f of rec.fields) {
            const ie = lookupElement(f.pen, f.id);
            const want = expected(ie.name, r);
            const field: TemplateField = { ie, length: ie.length, scope: false };
            const raw = typeof want === 'string' && ie.type === 'string' ? Buffer.from(want) : want instanceof Uint8Array ? want : new Uint8Array(0);
            assert.equal(f.value, ipfixDumpValue(field, want, raw, false), `port ${port} ${ie.name}`);
          }
        }
      });

      it('nfcapd receives every flow and nfdump prints its addresses, ports, protocol and counters', async (t) => {
        if (!requireTools(t, NFCAPD, NFDUMP)) return;
        const flows = await nfdumpMessages(await messages(), t.signal);
        assert.equal(flows.length, COUNT);
        for (const flow of flows) {
          const r = ports.get(Number(flow.src_port))!;
          assert.ok(r, `flow with source port ${flow.src_port}`);
          const v6 = r.sourceIPv6Address !== null;
          assert.deepEqual(
            [flow[v6 ? 'src6_addr' : 'src4_addr'], flow[v6 ? 'dst6_addr' : 'dst4_addr'], flow.dst_port, flow.proto, flow.in_packets, flow.in_bytes, flow.out_packets, flow.out_bytes],
            [expected(v6 ? 'sourceIPv6Address' : 'sourceIPv4Address', r), expected(v6 ? 'destinationIPv6Address' : 'destinationIPv4Address', r), r.destinationTransportPort, r.protocolIdentifier, r.packetDeltaCount, r.octetDeltaCount, r.reversePacketDeltaCount, r.reverseOctetDeltaCount],
          );
          if (mode === 'Proxy') assert.equal(flow.direction, r.flowDirection);
        }
      });
    });
  }
}
