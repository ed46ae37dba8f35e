// The flow log's CSV line: Antrea's 30 fields (reference §7.4) with its prettyPrint names. Antrea joins
// the fields with commas as they are; flowagg quotes a field the RFC 4180 way when it holds a comma, a
// quote or a line break, because the strings come from exporters and one with a newline would otherwise
// forge a line. Kubernetes names never need it, so the lines Antrea would write are unchanged.
//
// The line is written from the scanned record straight into the batch's bytes, by a writer compiled
// from FLOW_LOG_FIELDS: the values toFlowRow would give (csv.test.ts checks the line against the row's
// fields on random records), without the row, a string per value or an encode per line.
import { type LineRoom, putAscii, putNumber } from '../../lib/ascii-bytes.js';
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { putIpv6 } from '../../lib/ipfix/text.js';
import { FIELD, type ScannedRecord, utf8 } from '../../schemas/flow-record-scanner.js';
import { FLOW_LOG_FIELDS } from '../row/columns.js';
import { type FlowRowField, ROW_ADDRESSES, ROW_SECONDS, rowAddressField } from '../row/flow-row.js';

const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'ICMP', 2: 'IGMP', 6: 'TCP', 17: 'UDP', 58: 'IPv6-ICMP', 132: 'SCTP' };
const RULE_ACTIONS = ['', 'Allow', 'Drop', 'Reject'];
const POLICY_TYPES = ['', 'K8sNetworkPolicy', 'AntreaNetworkPolicy', 'AntreaClusterNetworkPolicy', 'K8sClusterNetworkPolicy'];

export const prettyProtocol = (n: number): string => PROTOCOLS[n] ?? 'Unknown Protocol';
export const prettyRuleAction = (n: number): string => RULE_ACTIONS[n] ?? 'Invalid';
export const prettyPolicyType = (n: number): string => POLICY_TYPES[n] ?? 'Invalid';

/** RFC 4180 quoting, only when the field holds a comma, a quote or a line break. */
export function csvField(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 44 || c === 34 || c === 10 || c === 13) return `"${s.replaceAll('"', '""')}"`;
  }
  return s;
}

/** A string field's bytes as they are when they need no quoting and are ASCII; else csvField of its text. Nothing when null. */
function putField(b: Buffer, p: number, s: Buffer, start: number, length: number): number {
  if (start < 0) return p;
  const at = p;
  for (let k = start, end = start + length; k < end; k++) {
    const c = s[k]!;
    if (c >= 0x80 || c === 44 || c === 34 || c === 10 || c === 13) return at + b.write(csvField(utf8(s, start, end)), at, 'utf8');
    b[p++] = c;
  }
  return p;
}

/** The address as toFlowRow prints it (IPv4 digit by digit), nothing for "". */
function putAddress(b: Buffer, p: number, r: ScannedRecord, v4: number, v6: number, zeroIsUnset: boolean): number {
  const field = rowAddressField(r, v4, v6, zeroIsUnset);
  if (field < 0) return p;
  const s = r.buf;
  const at = r.start[field]!;
  if (field === v6) return putIpv6(b, p, s, at);
  for (let k = 0; k < 4; k++) {
    if (k > 0) b[p++] = 46;
    p = putNumber(b, p, s[at + k]!);
  }
  return p;
}

const PRETTY: Partial<Record<FlowRowField, string>> = {
  protocolIdentifier: 'prettyProtocol',
  ingressNetworkPolicyRuleAction: 'prettyRuleAction',
  egressNetworkPolicyRuleAction: 'prettyRuleAction',
  ingressNetworkPolicyType: 'prettyPolicyType',
  egressNetworkPolicyType: 'prettyPolicyType',
};
const STRINGS: ReadonlySet<FlowRowField> = new Set(['sourcePodName', 'sourcePodNamespace', 'sourceNodeName', 'destinationPodName', 'destinationPodNamespace', 'destinationNodeName', 'destinationServicePortName',
  'ingressNetworkPolicyName', 'ingressNetworkPolicyNamespace', 'ingressNetworkPolicyRuleName', 'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressNetworkPolicyRuleName', 'egressName', 'egressIP', 'egressNodeName']);

type Write = (r: ScannedRecord, b: Buffer, p: number) => number;

function fieldCode(name: FlowRowField, pretty: boolean): string {
  const address = ROW_ADDRESSES[name];
  if (address !== undefined) return `p = putAddress(b, p, r, ${FIELD[address[0]]!}, ${FIELD[address[1]]!}, ${address[2]});`;
  const ms = ROW_SECONDS[name];
  if (ms !== undefined) return `x = r.num[${FIELD[ms]!}]; p = putNumber(b, p, x === x ? Math.floor(x / 1000) : 0);`;
  const i = FIELD[name];
  if (i === undefined) throw new Error(`the flow log's column ${name} has no FlowRecord field`);
  if (STRINGS.has(name)) return `p = putField(b, p, r.buf, r.start[${i}], r.length[${i}]);`;
  const fn = PRETTY[name];
  return pretty && fn !== undefined ? `p = putAscii(b, p, ${fn}(r.num0(${i})));` : `p = putNumber(b, p, r.num0(${i}));`;
}

function compileWriter(pretty: boolean): Write {
  const lines = ['let x = 0;', FLOW_LOG_FIELDS.map((name) => fieldCode(name, pretty)).join('\nb[p++] = 44;\n'), 'b[p] = 10;', 'return p + 1;'];
  const helpers = { putAscii, putNumber, putField, putAddress, prettyProtocol, prettyRuleAction, prettyPolicyType };
  return compileFunction<Write>(pretty ? 'writeFlowLogCsvPretty' : 'writeFlowLogCsv', ['r', 'b', 'p'], lines.join('\n'), helpers);
}

/** Room for any line: a string byte becomes at most 3 (U+FFFD for a byte that is not UTF-8), every other field at most 48. */
const roomFor = (r: ScannedRecord) => 3 * r.buf.length + 48 * FLOW_LOG_FIELDS.length;

/** Writes the CSV line (newline included) of the record scanned last into `out`; returns where it ends. */
export function csvLineWriter(prettyPrint: boolean): (r: ScannedRecord, out: LineRoom) => number {
  const write = compileWriter(prettyPrint);
  return (r, out) => write(r, out.room(roomFor(r)), out.length);
}
