// Random FlowRecords for the tests that hold a fast writer to its reference: random values of every
// field, including what real records hold and avsc's random values miss: absent fields, IPv4 or IPv6
// addresses (and unspecified ones), times from seconds, strings to escape or quote (quotes, commas, line
// breaks, control characters, non-ASCII), pod labels as JSON, and extras, unknown ones and ones that
// repeat a typed element. Production code never imports this file.
import { FLOW_RECORD_FIELDS, FLOW_RECORD_TYPE, type FlowRecord } from '../flow-record.js';

/** A seeded generator, so that a failure names a seed that reproduces it. */
export { rng as seeded } from '../../lib/ipfix/testing/fuzz.js';

const STRINGS = ['', 'client-3', 'perf/server:5201', 'a,b', 'say "hi"', 'back\\slash', 'line\nbreak', 'cr\rlf', 'tab\there', '\u0001ctl\u001f', 'café', '日本語', 'emoji 🚀', '\u2028sep\u2029', '\u007fdel', '{"app":"client","tier":"a,b"}', 'x'.repeat(300)];

const FIELDS = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; defaultValue(): unknown }[] }).fields;

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

function bytes(rand: () => number, n: number, zero: boolean): Buffer {
  return zero ? Buffer.alloc(n) : Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
}

const EXTRAS = [
  { pen: 0, id: 7, size: 2 }, // sourceTransportPort, also a typed field
  { pen: 0, id: 1, size: 8 }, // octetDeltaCount
  { pen: 0, id: 150, size: 4 }, // flowStartSeconds: the key of a time from seconds
  { pen: 0, id: 82, size: 5 }, // interfaceName, a string
  { pen: 99, id: 5, size: 3 }, // nobody's element
  { pen: 0, id: 291, size: 6 }, // basicList: kept as bytes
];

export function randomFlowRecord(rand: () => number): FlowRecord {
  const r: Record<string, unknown> = Object.fromEntries(FIELDS.map((f) => [f.name, f.defaultValue()]));
  for (const name of ['exporterPort', 'observationDomainId', 'sequenceNumber', 'templateId']) r[name] = Math.floor(rand() * 2 ** 16);
  for (const f of FLOW_RECORD_FIELDS) {
    if (f.kind === 'element' || f.kind === 'time' || f.kind === 'timeSource') {
      if (rand() < 0.3) r[f.name] = null;
      else if (f.kind === 'element' && f.encoding === 'string') r[f.name] = pick(rand, STRINGS);
      else if (f.kind === 'element' && f.encoding === 'fixed') r[f.name] = bytes(rand, f.size, rand() < 0.2);
      else if (f.kind === 'element') r[f.name] = rand() < 0.5 ? Math.floor(rand() * 256) : Math.floor(rand() * 2 ** (f.encoding === 'long' ? 53 : 31)) * (f.ie.type.startsWith('signed') && rand() < 0.5 ? -1 : 1);
      else if (f.kind === 'time') r[f.name] = 1_700_000_000_000 + Math.floor(rand() * 1e9);
      else r[f.name] = pick(rand, ['seconds', 'milliseconds', 'unknown']);
    }
  }
  // IPv4 or IPv6, as a flow has one or the other.
  for (const [v4, v6] of [['sourceIPv4Address', 'sourceIPv6Address'], ['destinationIPv4Address', 'destinationIPv6Address'], ['destinationClusterIPv4', 'destinationClusterIPv6'], ['destinationServiceIPv4', 'destinationServiceIPv6']] as const) {
    const which = rand();
    if (which < 0.5) r[v4] = null;
    else if (which < 0.75) r[v6] = null;
  }
  r.exporterAddress = pick(rand, ['', '10.0.0.1', 'fe80::1', '2001:db8::7']);
  r.transport = pick(rand, ['unknown', 'udp', 'tcp', 'tls', 'grpc']);
  r.exportTime = pick(rand, [1_700_000_000_000, 1_700_000_000_500, 0]);
  r.receiveTime = pick(rand, [0, 1_700_000_000_123]);
  r.extras = rand() < 0.5 ? [] : Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
    const x = pick(rand, EXTRAS);
    return { pen: x.pen, id: x.id, value: x.id === 82 ? Buffer.from(pick(rand, ['eth0', 'a"b\n', 'ünï'])) : bytes(rand, x.size, false) };
  });
  return r as unknown as FlowRecord;
}
