// Test support: NetFlow v9 and v5 packets for the mutation fuzzer (fuzz.ts), and the codec's NetFlow decoder
// as a fuzz target. The packets are built with netflow-packets.ts: a router's session (options, templates,
// sampled data), templates with odd lengths, variable-length and vendor fields under two Source IDs, and v5.
import { decodeNetflow } from '../netflow-message.js';
import { TemplateStore } from '../template-store.js';
import type { FuzzTarget, MessageShape } from './fuzz.js';
import {
  type NetflowTemplate, ROUTER_TEMPLATE, routerValues, SAMPLER_OPTIONS_TEMPLATE, v5Packet, v9DataSet, v9OptionsTemplateSet, v9Packet, v9Record, v9TemplateSet,
} from './netflow-packets.js';

export const NETFLOW_SHAPE: MessageShape = { headerLength: 20, lengthField: false, templateSetIds: [0, 1] };

const ODD: NetflowTemplate = {
  id: 300,
  fields: [
    { type: 8, length: 4 }, { type: 12, length: 16 }, { type: 1, length: 8 }, { type: 2, length: 3 }, { type: 82, length: 65535 },
    { type: 40001, length: 4 }, { type: 33002, length: 2 }, { type: 152, length: 8 }, { type: 0, length: 2 }, { type: 27, length: 16 },
  ],
};
const SYSTEM_OPTIONS: NetflowTemplate = { id: 301, scope: [{ type: 1, length: 4 }, { type: 9, length: 2 }], fields: [{ type: 34, length: 4 }, { type: 35, length: 1 }] };

function oddRecord(i: number): Buffer {
  const name = Buffer.from(`Gi0/${i}`);
  return Buffer.concat([
    Buffer.from([10, 0, 0, i & 255]), Buffer.alloc(16, i), Buffer.alloc(8, 1), Buffer.from([0, 0, i & 255]), Buffer.from([name.length]), name,
    Buffer.from([192, 0, 2, 1]), Buffer.from([0, 7]), Buffer.alloc(8, 2), Buffer.from([0, 0]), Buffer.alloc(16, 3),
  ]);
}

/** Sessions of packets to corrupt, each decoded in order into one store. */
export function netflowCorpus(): Uint8Array[][] {
  const h = (sequence: number, sourceId = 1) => ({ sysUpTime: 86_400_000, unixSecs: 1_700_000_000, sequence, sourceId });
  const data = (from: number, n: number) => Array.from({ length: n }, (_, i) => v9Record(ROUTER_TEMPLATE, routerValues(from + i, 86_400_000, 1 + (i % 3))));
  const router = [
    v9Packet(h(1), [v9OptionsTemplateSet([SAMPLER_OPTIONS_TEMPLATE]), v9DataSet(257, [v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 1, 2, 100]), v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 2, 2, 10])])]),
    v9Packet(h(2), [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, data(0, 20))]),
    v9Packet(h(3), [v9DataSet(256, data(20, 30))]),
  ];
  const odd = [
    v9Packet(h(1, 2), [v9TemplateSet([ODD, ROUTER_TEMPLATE]), v9OptionsTemplateSet([SYSTEM_OPTIONS]), v9DataSet(301, [v9Record(SYSTEM_OPTIONS, [0, Buffer.from([0, 1]), 64, 2])])]),
    v9Packet(h(2, 2), [v9DataSet(300, [0, 1, 2, 3].map(oddRecord)), v9DataSet(256, data(50, 5))]),
    v9Packet(h(1, 3), [v9TemplateSet([{ ...ODD, fields: ODD.fields.slice(0, 4) }]), v9DataSet(300, [Buffer.alloc(31, 4)])]),
  ];
  const flows = (n: number) => Array.from({ length: n }, (_, i) => ({ src: `10.1.0.${i}`, dst: `10.2.0.${i}`, packets: i + 1, octets: 64 * (i + 1), first: 1000 * i, last: 1000 * i + 500, srcPort: 1024 + i, dstPort: 80, protocol: 6, tcpFlags: 0x1b }));
  const v5 = [30, 10, 1].map((n, k) => v5Packet({ sysUpTime: 40_000, unixSecs: 1_700_000_000, unixNsecs: 5e8, flowSequence: k * 30, engineType: 1, engineId: k, sampling: (1 << 14) | 100 }, flows(n)));
  return [router, odd, v5];
}

/** The codec's NetFlow decoder as a fuzz target. */
export function netflowDecoderTarget(): FuzzTarget<TemplateStore> {
  return {
    session: () => new TemplateStore({ transport: 'udp', maxTemplates: 4096 }),
    decode: (store, bytes) => {
      const d = decodeNetflow(bytes, store);
      return { records: d.records.length, errors: d.errors };
    },
    corpus: netflowCorpus,
    shape: NETFLOW_SHAPE,
  };
}
