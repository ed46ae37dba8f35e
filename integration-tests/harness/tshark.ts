// tshark as an independent IPFIX and NetFlow decoder: export messages (IPFIX messages, NetFlow v9 or v5
// packets) are written to a pcap as UDP datagrams to the collector port, tshark's cflow dissector decodes
// them (`-T json --no-duplicate-keys`), and its output becomes one TsharkRecord per data record,
// interpreted with the templates tshark itself decoded (v5: its fixed record, as IANA elements).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlowaggError } from '../../lib/errors.js';
import { ethernetFrame } from './packets.js';
import { writePcap } from '../../lib/capture/testing/pcap-files.js';
import { type CflowValue, cflowField, parseTsharkRelativeMs, REVERSE_PEN } from './tshark-fields.js';
import { SCOPE_FIELDS } from '../../lib/ipfix/netflow-fields.js';
import { HARNESS_TOOL_OUTPUT, runTool } from './tools.js';

export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

export interface TsharkTemplateField {
  readonly pen: number;
  readonly id: number;
  readonly length: number;
}

export interface TsharkRecordField extends TsharkTemplateField {
  readonly value: CflowValue;
}

export interface TsharkRecord {
  /** 1-based frame number in the pcap, i.e. the index of the message plus one. */
  readonly frame: number;
  readonly templateId: number;
  readonly fields: readonly TsharkRecordField[];
}

export interface TsharkMessageHeader {
  readonly exportTime: number;
  readonly sequenceNumber: number;
  /** IPFIX's observation domain; NetFlow v9's Source ID; v5's engine type × 256 + engine id. */
  readonly observationDomainId: number;
  /** NetFlow: the header's sysUpTime in ms, and (v5) its unix_nsecs. */
  readonly sysUpTimeMs?: number;
  readonly unixNsecs?: number;
}

export interface TsharkDecode {
  /** One per frame (message). */
  readonly headers: TsharkMessageHeader[];
  readonly records: TsharkRecord[];
  /** Expert-info messages tshark attached to the cflow layer (e.g. missing templates). */
  readonly warnings: string[];
}

export const DEFAULT_EXPORTER: Endpoint = { address: '192.0.2.1', port: 40_000 };
const DEFAULT_COLLECTOR: Endpoint = { address: '192.0.2.2', port: 4739 };

/** A pcap holding each message as one UDP datagram from exporter to collector, 1 ms apart. */
export function collectorPcap(
  messages: readonly Uint8Array[],
  exporter: Endpoint = DEFAULT_EXPORTER,
  collector: Endpoint = DEFAULT_COLLECTOR,
  startUs = Date.UTC(2024, 0, 1) * 1000,
): Buffer {
  return writePcap(
    messages.map((payload, i) => ({
      timeUs: startUs + i * 1000,
      frame: ethernetFrame({
        src: exporter.address,
        dst: collector.address,
        transport: { kind: 'udp', srcPort: exporter.port, dstPort: collector.port },
        payload,
      }),
    })),
  );
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Children of `obj` whose key starts with `prefix`, arrays (merged duplicate keys) flattened. */
function children(obj: JsonObject, prefix: string): JsonObject[] {
  return Object.entries(obj)
    .filter(([k]) => k.startsWith(prefix))
    .flatMap(([, v]) => (Array.isArray(v) ? v : [v]))
    .filter(isObject);
}

function str(obj: JsonObject, key: string): string {
  const v = obj[key];
  if (typeof v !== 'string') throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark JSON: "${key}" missing or not a string`);
  return v;
}

/** Every cflow.* leaf under obj, by name, in document order. */
function leaves(obj: Json, out = new Map<string, string[]>(), name = ''): Map<string, string[]> {
  if (typeof obj === 'string') {
    const list = out.get(name) ?? [];
    list.push(obj);
    out.set(name, list);
  } else if (Array.isArray(obj)) obj.forEach((v) => leaves(v, out, name));
  else if (isObject(obj)) for (const [k, v] of Object.entries(obj)) leaves(v, out, k);
  return out;
}

/** NetFlow v9 scope fields, as tshark names and prints their values (System as bytes), by v9 scope type (RFC 3954 §6.1). */
const SCOPE_NAMES: ReadonlyMap<number, { readonly name: string; readonly parse: (text: string) => bigint }> = new Map([
  [1, { name: 'cflow.scope_system', parse: (text: string) => BigInt(`0x${text.replaceAll(':', '')}`) }],
  [2, { name: 'cflow.scope_interface', parse: (text: string) => BigInt(text) }],
]);
/** The scope fields of v9 options templates, which tshark names apart from data fields of the same element. */
const scopeNames = new WeakMap<TsharkTemplateField, { readonly name: string; readonly parse: (text: string) => bigint }>();

function templateFields(template: JsonObject): TsharkTemplateField[] {
  return children(template, 'Field (').map((f) => {
    const length = Number(str(f, 'cflow.template_field_length'));
    // NetFlow v9: a type and a length, no enterprise; scope types are numbered apart, as the codec maps them.
    if (typeof f['cflow.template_field_type'] === 'string') return { pen: 0, id: Number(str(f, 'cflow.template_field_type')), length };
    if (typeof f['cflow.scope_field_type'] === 'string') {
      const type = Number(str(f, 'cflow.scope_field_type'));
      const name = SCOPE_NAMES.get(type);
      if (name === undefined) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `no tshark name known for NetFlow v9 scope type ${type}: add it to tshark.ts`);
      const field = { pen: 0, id: SCOPE_FIELDS.get(type)!, length };
      scopeNames.set(field, name);
      return field;
    }
    return {
      pen: str(f, 'cflow.template_ipfix_pen_provided') === '1' ? Number(str(f, 'cflow.template_ipfix_field_pen')) : 0,
      // An element of an enterprise tshark has no dictionary for is typed "_enterprise".
      id: Number(str(f, typeof f['cflow.template_ipfix_field_type'] === 'string' ? 'cflow.template_ipfix_field_type' : 'cflow.template_ipfix_field_type_enterprise')),
      length: Number(str(f, 'cflow.template_field_length')),
    };
  });
}

/** NetFlow v5's record as tshark prints it ("pdu i/n"), as IANA elements in record order, the pads left out. */
const V5_FIELDS: readonly TsharkTemplateField[] = [
  [8, 4], [12, 4], [15, 4], [10, 2], [14, 2], [2, 4], [1, 4], [22, 4], [21, 4], [7, 2], [11, 2], [6, 1], [4, 1], [5, 1], [16, 2], [17, 2], [9, 1], [13, 1],
].map(([id, length]) => ({ pen: 0, id: id!, length: length! }));
/** The template id v5 records have in flowagg (netflow-v5.ts). */
const V5_TEMPLATE_ID = 0;

const isStandard = (f: TsharkTemplateField) => f.pen === 0 || f.pen === REVERSE_PEN;

function dataRecord(frame: number, templateId: number, all: readonly TsharkTemplateField[], flow: JsonObject, standardOnly: boolean): TsharkRecord {
  const fields = standardOnly ? all.filter(isStandard) : all;
  const values = leaves(flow);
  const taken = new Map<string, number>();
  const next = (alternatives: readonly string[]): string => {
    for (const name of alternatives) {
      const i = taken.get(name) ?? 0;
      const v = values.get(name)?.[i];
      if (v === undefined) continue;
      taken.set(name, i + 1);
      return v;
    }
    throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark frame ${frame}, template ${templateId}: no value left for ${alternatives.join(' or ')}`);
  };
  return {
    frame,
    templateId,
    fields: fields.map((f) => {
      const scope = scopeNames.get(f);
      const { names, parse } = scope === undefined ? cflowField(f.pen, f.id) : { names: [[scope.name]], parse: (t: readonly string[]) => scope.parse(t[0]!) };
      return { ...f, value: parse(names.map(next)) };
    }),
  };
}

/** Turns `tshark -T json --no-duplicate-keys` output for cflow packets into data records. */
export function parseCflowJson(json: unknown, opts: { readonly standardOnly?: boolean } = {}): TsharkDecode {
  const standardOnly = opts.standardOnly ?? false;
  if (!Array.isArray(json)) throw new FlowaggError(HARNESS_TOOL_OUTPUT, 'tshark JSON: expected an array of packets');
  const templates = new Map<number, TsharkTemplateField[]>();
  const headers: TsharkMessageHeader[] = [];
  const records: TsharkRecord[] = [];
  const warnings: string[] = [];
  (json as Json[]).forEach((packet, index) => {
    const layers = isObject(packet) && isObject(packet._source) ? packet._source.layers : undefined;
    const cflow = isObject(layers) ? layers.cflow : undefined;
    if (!isObject(cflow)) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark JSON: frame ${index + 1} has no cflow layer`);
    const all = leaves(cflow);
    const header = (name: string) => Number(all.get(name)?.[0] ?? NaN);
    const version = header('cflow.version');
    headers.push(version !== 9 && version !== 5
      ? { exportTime: header('cflow.exporttime'), sequenceNumber: header('cflow.sequence'), observationDomainId: header('cflow.od_id') }
      : {
          exportTime: header('cflow.unix_secs'), sequenceNumber: header('cflow.sequence'),
          observationDomainId: version === 9 ? header('cflow.source_id') : header('cflow.engine_type') * 256 + header('cflow.engine_id'),
          sysUpTimeMs: Number(parseTsharkRelativeMs(all.get('cflow.sysuptime')?.[0] ?? '')),
          ...(version === 5 && { unixNsecs: header('cflow.unix_nsecs') }),
        });
    const expert = all.get('_ws.expert.message') ?? [];
    warnings.push(...expert.map((m) => `frame ${index + 1}: ${m}`));
    for (const pdu of children(cflow, 'pdu ')) records.push(dataRecord(index + 1, V5_TEMPLATE_ID, V5_FIELDS, pdu, standardOnly));
    for (const set of [...children(cflow, 'Set '), ...children(cflow, 'FlowSet ')]) {
      for (const t of [...children(set, 'Template ('), ...children(set, 'Options Template (')]) {
        templates.set(Number(str(t, 'cflow.template_id')), templateFields(t));
      }
      const flows = children(set, 'Flow ');
      if (flows.length === 0) continue;
      const templateId = Number(str(set, 'cflow.flowset_id'));
      const fields = templates.get(templateId);
      if (fields === undefined) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark frame ${index + 1}: data set ${templateId} before its template`);
      for (const flow of flows) records.push(dataRecord(index + 1, templateId, fields, flow, standardOnly));
    }
  });
  return { headers, records, warnings };
}

export interface TsharkOptions {
  /** Where the datagrams go; tshark decodes that UDP port as cflow. */
  readonly collector?: Endpoint;
  /** Kills tshark when aborted (pass the test's `t.signal`). */
  readonly signal?: AbortSignal;
  /**
   * Only IANA and RFC 5103 reverse elements: those of enterprises tshark has no dictionary for are left out
   * (it prints nothing for their empty values, so a record with one cannot be read field by field).
   */
  readonly standardOnly?: boolean;
}

/** Decodes IPFIX messages or NetFlow packets with tshark (each as a UDP datagram to the collector port). */
export async function tsharkDecodeIpfix(messages: readonly Uint8Array[], opts: TsharkOptions = {}): Promise<TsharkDecode> {
  const collector = opts.collector ?? DEFAULT_COLLECTOR;
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-tshark-'));
  try {
    const path = join(dir, 'ipfix.pcap');
    await writeFile(path, collectorPcap(messages, DEFAULT_EXPORTER, collector));
    const run = await runTool(
      'tshark',
      // Antrea's templates have 70 elements, more than the dissector's default limit of 60.
      ['-n', '-r', path, '-o', 'cflow.max_template_fields:256', '-d', `udp.port==${collector.port},cflow`, '-T', 'json', '--no-duplicate-keys'],
      { timeoutMs: 120_000, env: { TZ: 'UTC' }, signal: opts.signal },
    );
    return parseCflowJson(JSON.parse(run.stdout), { standardOnly: opts.standardOnly ?? false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** tshark's flow records: those with addresses (options records left out, as ingest leaves them out of flows.raw). */
export function tsharkFlows(decoded: TsharkDecode): TsharkRecord[] {
  return decoded.records.filter((r) => r.fields.some((f) => f.pen === 0 && (f.id === 8 || f.id === 27)));
}

/**
 * A flow's start and end in ms since the epoch as tshark gives them: its absolute times (flowStart/End
 * Seconds or Milliseconds), or the NetFlow header's unix time less sysUpTime plus its relative ones.
 */
export function tsharkFlowTimes(decoded: TsharkDecode, r: TsharkRecord): [number, number] {
  const h = decoded.headers[r.frame - 1]!;
  const time = (relative: number, absolute: readonly number[]): number => {
    const rel = r.fields.find((f) => f.pen === 0 && f.id === relative);
    if (rel !== undefined) return h.exportTime * 1000 + Math.floor((h.unixNsecs ?? 0) / 1e6) - h.sysUpTimeMs! + Number(rel.value);
    const abs = r.fields.find((f) => f.pen === 0 && absolute.includes(f.id));
    if (abs === undefined) throw new FlowaggError(HARNESS_TOOL_OUTPUT, `tshark frame ${r.frame}, template ${r.templateId}: a flow without a time`);
    return Number((abs.value as bigint) / 1_000_000n);
  };
  return [time(22, [150, 152]), time(21, [151, 153])];
}
