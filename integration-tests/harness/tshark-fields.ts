// How tshark's cflow dissector (4.0) names and prints the information elements softflowd sends (as IPFIX,
// NetFlow v9 or v5, whose fields tshark prints under the same names), and those of flowagg's flow template, and how
// to turn its text back into comparable values: integers as bigint, addresses and strings as text,
// absolute times as bigint nanoseconds since the epoch, sysUpTime times as bigint milliseconds.
// RFC 5103 reverse elements (PEN 29305) print under the same names as their forward elements.
import { FlowaggError } from '../../lib/errors.js';
import { HARNESS_TOOL_OUTPUT } from './tools.js';

export type CflowValue = bigint | string;

interface CflowField {
  /**
   * The cflow.* fields holding the element, in the order tshark prints them; each is a list of
   * alternative names, the first one with a value left in the record is taken.
   */
  readonly names: readonly (readonly string[])[];
  readonly parse: (texts: readonly string[]) => CflowValue;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Jan 15, 2024 10:00:45.402000999 UTC" (tshark run with TZ=UTC) to nanoseconds since the epoch. */
export function parseTsharkTime(text: string): bigint {
  const m = /^(\w{3})\s+(\d{1,2}), (\d{4}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? UTC$/.exec(text);
  const month = m === null ? -1 : MONTHS.indexOf(m[1] as string);
  if (m === null || month < 0) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark time "${text}" is not in the expected UTC format`);
  const seconds = Date.UTC(Number(m[3]), month, Number(m[2]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
  return BigInt(seconds) * 1_000_000_000n + BigInt((m[7] ?? '0').padEnd(9, '0'));
}

/** "44.775000000" (seconds, relative) to whole milliseconds. */
export function parseTsharkRelativeMs(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (m === null) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark relative time "${text}" is not "seconds.fraction"`);
  return BigInt(m[1] as string) * 1000n + BigInt((m[2] ?? '0').padEnd(9, '0')) / 1_000_000n;
}

const first = (texts: readonly string[]) => texts[0] as string;
const integer = (name: string): CflowField => ({ names: [[name]], parse: (t) => BigInt(first(t)) });
const text = (name: string): CflowField => ({ names: [[name]], parse: first });
const absoluteTime = (name: string): CflowField => ({ names: [[name]], parse: (t) => parseTsharkTime(first(t)) });
// tshark prints a sysUpTime of 0 as the absolute time 1970-01-01 00:00:00 under the abstime name.
const upTime = (name: string, zeroName: string): CflowField => ({
  names: [[name, zeroName]],
  parse: (t) => (first(t).endsWith('UTC') ? parseTsharkTime(first(t)) / 1_000_000n : parseTsharkRelativeMs(first(t))),
});

/** By IANA element id. */
const CFLOW_FIELDS: ReadonlyMap<number, CflowField> = new Map([
  [1, integer('cflow.octets')],
  [2, integer('cflow.packets')],
  [4, integer('cflow.protocol')],
  [5, integer('cflow.tos')],
  [6, integer('cflow.tcpflags')],
  [7, integer('cflow.srcport')],
  [8, text('cflow.srcaddr')],
  [9, integer('cflow.srcmask')],
  [10, integer('cflow.inputint')],
  [11, integer('cflow.dstport')],
  [12, text('cflow.dstaddr')],
  [13, integer('cflow.dstmask')],
  [14, integer('cflow.outputint')],
  [15, text('cflow.nexthop')],
  [16, integer('cflow.srcas')],
  [17, integer('cflow.dstas')],
  [21, upTime('cflow.timeend', 'cflow.abstimeend')],
  [22, upTime('cflow.timestart', 'cflow.abstimestart')],
  [27, text('cflow.srcaddrv6')],
  [28, text('cflow.dstaddrv6')],
  [29, integer('cflow.srcmaskv6')],
  [30, integer('cflow.dstmaskv6')],
  [32, integer('cflow.icmp_type_code_ipv4')],
  [34, integer('cflow.sampling_interval')],
  [48, integer('cflow.sampler_id')],
  [49, integer('cflow.sampler_mode')],
  [50, integer('cflow.sampler_random_interval')],
  [53, integer('cflow.ttl_max')],
  [56, text('cflow.srcmac')],
  [58, integer('cflow.vlanid')],
  [59, integer('cflow.post_vlanid')],
  [35, integer('cflow.sampling_algorithm')],
  [60, integer('cflow.ip_version')],
  [61, integer('cflow.direction')],
  [62, text('cflow.nexthopv6')],
  [80, text('cflow.dstmac')],
  [82, text('cflow.if_name')],
  [85, integer('cflow.permanent_octets')],
  [86, integer('cflow.permanent_packets')],
  [136, integer('cflow.flow_end_reason')],
  [210, text('cflow.padding')],
  [139, { names: [['cflow.icmp_ipv6_type'], ['cflow.icmp_ipv6_code']], parse: ([type, code]) => BigInt(type as string) * 256n + BigInt(code as string) }],
  [143, integer('cflow.mp_id')],
  [150, absoluteTime('cflow.abstimestart')],
  [151, absoluteTime('cflow.abstimeend')],
  [152, absoluteTime('cflow.abstimestart')],
  [153, absoluteTime('cflow.abstimeend')],
  [154, absoluteTime('cflow.abstimestart')],
  [155, absoluteTime('cflow.abstimeend')],
  [156, absoluteTime('cflow.abstimestart')],
  [157, absoluteTime('cflow.abstimeend')],
  [160, absoluteTime('cflow.sys_init_time')],
  [304, integer('cflow.selector_algorithm')],
  [305, integer('cflow.sampling_packet_interval')],
  [306, integer('cflow.sampling_packet_space')],
  [351, integer('cflow.layer2_segment_id')],
  [403, text('cflow.original_exporter_ipv4_address')],
  [404, text('cflow.original_exporter_ipv6_address')],
  [405, integer('cflow.original_observation_domain_id')],
]);

export const REVERSE_PEN = 29305;
export const ANTREA_PEN = 56506;

/**
 * tshark 4.0 has no dictionary for Antrea's elements (nor VMware's, PEN 6876): it prints each value as
 * colon-separated hex bytes, in template order, and prints nothing for an empty variable-length value.
 */
const ENTERPRISE_ENTRY: CflowField = text('cflow.enterprise_private_entry');
const VMWARE_PEN = 6876;

export function cflowField(pen: number, id: number): CflowField {
  const field = pen === 0 || pen === REVERSE_PEN ? CFLOW_FIELDS.get(id) : pen === ANTREA_PEN || pen === VMWARE_PEN ? ENTERPRISE_ENTRY : undefined;
  if (field === undefined) {
    throw new FlowaggError(HARNESS_TOOL_OUTPUT, `no tshark field known for information element ${pen}/${id}: add it to tshark-fields.ts`, { context: { pen, id } });
  }
  return field;
}
