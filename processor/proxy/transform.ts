// Proxy mode (reference §2.2–2.4): each record forwarded as received, with what Antrea's proxyRecord
// adds: originalObservationDomainId (405) and originalExporterIPv4/IPv6Address (403/404) from the
// record's provenance, flowDirection (61), the missing side of an inter-Node record from Kubernetes,
// Pod labels, and with includeK8sUIDs the UIDs. Everything else, `extras` included, keeps its bytes.
//
// What changes is decided once (proxyChanges), from the scanned record; two writers apply it:
// - the fast one splices the input's Avro bytes: the unchanged fields' byte ranges are copied as they
//   are, the changed fields written in their place (records written with the current schema);
// - the reference one decodes with avsc, sets the fields and encodes again (records of older writer
//   schemas take it; transform.test.ts checks both give the same bytes).
import { copyBytes, writeLong } from '../../schemas/avro-binary.js';
import { ViewCache } from '../../lib/view-cache.js';
import type { RecordBuffer } from '../../schemas/record-buffer.js';
import { parseIpv4Into, parseIpv6Into } from '../../lib/ipfix/text.js';
import { type AvroFraming, type AvroReader, type AvroWriter, framingHeader } from '../../schemas/avro.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA, type FlowRecord } from '../../schemas/flow-record.js';
import { FIELD_COUNT, fieldIndex, latin1, type ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { labelsOf, type MetadataOptions, nodeNamed, podAt, serviceOfPortName, uidBytes } from '../metadata-fill.js';
import type { PodInfo } from '../../lib/k8s/metadata.js';
import { FLOW_TYPE_INTER_NODE, isSetBytes, R } from '../record-input.js';
import { flowDirection } from './direction.js';

const KIND_LONG = 0;
const KIND_FIXED = 1;
const KIND_TEXT = 2;

const F = {
  flowDirection: fieldIndex('flowDirection'),
  originalObservationDomainId: fieldIndex('originalObservationDomainId'),
  originalExporterIPv4Address: fieldIndex('originalExporterIPv4Address'),
  originalExporterIPv6Address: fieldIndex('originalExporterIPv6Address'),
  destinationServicePortName: fieldIndex('destinationServicePortName'),
  egressNodeName: fieldIndex('egressNodeName'),
  destinationServiceUUID: fieldIndex('destinationServiceUUID'),
  egressNodeUUID: fieldIndex('egressNodeUUID'),
};

const SIDES = (['source', 'destination'] as const).map((side) => ({
  pod: fieldIndex(`${side}PodName`),
  namespace: fieldIndex(`${side}PodNamespace`),
  node: fieldIndex(`${side}NodeName`),
  labels: fieldIndex(`${side}PodLabels`),
  podUuid: fieldIndex(`${side}PodUUID`),
  nodeUuid: fieldIndex(`${side}NodeUUID`),
  v4: fieldIndex(`${side}IPv4Address`),
  v6: fieldIndex(`${side}IPv6Address`),
}));

/** The fields a proxied record gets, by field index, in schema order once sorted. Reused record to record. */
export class ProxyChanges {
  count = 0;
  readonly field = new Int32Array(FIELD_COUNT);
  readonly kind = new Uint8Array(FIELD_COUNT);
  readonly num = new Float64Array(FIELD_COUNT);
  /** Text (UTF-8) or fixed bytes (latin1) values. */
  readonly str: string[] = new Array<string>(FIELD_COUNT).fill('');
  /** Change index of a field, or -1. */
  private readonly slot = new Int32Array(FIELD_COUNT).fill(-1);

  reset(): void {
    for (let k = 0; k < this.count; k++) this.slot[this.field[k]!] = -1;
    this.count = 0;
  }

  private put(field: number, kind: number): number {
    let k = this.slot[field]!;
    if (k < 0) {
      k = this.count++;
      this.slot[field] = k;
      this.field[k] = field;
    }
    this.kind[k] = kind;
    return k;
  }

  long(field: number, v: number): void {
    this.num[this.put(field, KIND_LONG)] = v;
  }

  fixed(field: number, bytes: string): void {
    this.str[this.put(field, KIND_FIXED)] = bytes;
  }

  text(field: number, s: string): void {
    this.str[this.put(field, KIND_TEXT)] = s;
  }

  /** Sorts the changes by field index (schema order), for the splice: an insertion sort of a dozen entries. */
  sort(): void {
    for (let k = 1; k < this.count; k++) {
      const field = this.field[k]!;
      const kind = this.kind[k]!;
      const num = this.num[k]!;
      const str = this.str[k]!;
      let j = k - 1;
      for (; j >= 0 && this.field[j]! > field; j--) {
        this.field[j + 1] = this.field[j]!;
        this.kind[j + 1] = this.kind[j]!;
        this.num[j + 1] = this.num[j]!;
        this.str[j + 1] = this.str[j]!;
        this.slot[this.field[j + 1]!] = j + 1;
      }
      this.field[j + 1] = field;
      this.kind[j + 1] = kind;
      this.num[j + 1] = num;
      this.str[j + 1] = str;
      this.slot[field] = j + 1;
    }
  }
}

const ZERO_V4 = '\u0000'.repeat(4);
const ZERO_V6 = '\u0000'.repeat(16);
const addressScratch = Buffer.alloc(16);

/** The exporter's address (text) as IPv4 and IPv6 bytes: the one of its family, zeros for the other (Antrea's convention). */
function exporterAddresses(text: string): readonly [string, string] {
  if (text.includes(':')) return parseIpv6Into(text, addressScratch, 0) ? [ZERO_V4, latin1(addressScratch, 0, 16)] : [ZERO_V4, ZERO_V6];
  return parseIpv4Into(text, addressScratch, 0) ? [latin1(addressScratch, 0, 4), ZERO_V6] : [ZERO_V4, ZERO_V6];
}

/** Exporters whose addresses are remembered before starting over: far more Agents than one partition hears from. */
const MAX_REMEMBERED_EXPORTERS = 65_536;
const exporters = new Map<string, readonly [string, string]>();

/** exporterAddresses, remembered: every record of an Agent has the same exporter. */
function knownExporterAddresses(text: string): readonly [string, string] {
  let addresses = exporters.get(text);
  if (addresses === undefined) {
    if (exporters.size >= MAX_REMEMBERED_EXPORTERS) exporters.clear();
    exporters.set(text, (addresses = exporterAddresses(text)));
  }
  return addresses;
}

/** The side's address (latin1), IPv4 if the record has it, else IPv6. */
function sideAddress(r: ScannedRecord, side: (typeof SIDES)[number]): string {
  if (r.start[side.v4]! >= 0) return latin1(r.buf, r.start[side.v4]!, r.start[side.v4]! + 4);
  if (r.start[side.v6]! >= 0) return latin1(r.buf, r.start[side.v6]!, r.start[side.v6]! + 16);
  return '';
}

/** One side's changes: its Pod from Kubernetes when an inter-Node record lacks it (§2.3), its labels (§2.4). */
function sideChanges(r: ScannedRecord, side: (typeof SIDES)[number], flowType: number, options: MetadataOptions, c: ProxyChanges): void {
  const start = r.num0(R.flowStart);
  let pod: PodInfo | undefined;
  if (flowType === FLOW_TYPE_INTER_NODE && !r.hasText(side.pod)) {
    pod = podAt(options, sideAddress(r, side), start);
    if (pod !== undefined) {
      c.text(side.pod, pod.name);
      c.text(side.namespace, pod.namespace);
      c.text(side.node, pod.nodeName);
      if (options.includeK8sUIDs) {
        c.fixed(side.podUuid, uidBytes(pod.uid) || ZERO_V6);
        const node = nodeNamed(options, pod.nodeName);
        if (node !== undefined) c.fixed(side.nodeUuid, uidBytes(node.uid) || ZERO_V6);
      }
    }
  }
  // The record's names and address are decoded only when labels are asked for.
  const labels = options.podLabels ? labelsOf(options, pod?.name ?? r.text(side.pod), pod?.namespace ?? r.text(side.namespace), sideAddress(r, side), start) : '';
  c.text(side.labels, labels);
}

/** What proxy mode adds to one scanned record (reference §2.2 steps 1–4, §2.3, §2.4). */
export function proxyChanges(r: ScannedRecord, options: MetadataOptions, c: ProxyChanges): void {
  c.reset();
  const flowType = r.num[R.flowType]!;
  c.long(F.flowDirection, flowDirection(flowType, r.hasText(SIDES[0]!.pod), r.hasText(SIDES[1]!.pod), r.num[R.flowDirection]!));
  c.long(F.originalObservationDomainId, r.num0(R.observationDomainId));
  const [v4, v6] = knownExporterAddresses(r.text(R.exporterAddress));
  c.fixed(F.originalExporterIPv4Address, v4);
  c.fixed(F.originalExporterIPv6Address, v6);
  for (const side of SIDES) sideChanges(r, side, flowType, options, c);
  if (options.includeK8sUIDs) {
    const service = serviceOfPortName(options, r.text(F.destinationServicePortName));
    if (service !== undefined) c.fixed(F.destinationServiceUUID, uidBytes(service.uid) || ZERO_V6);
    const egressNode = nodeNamed(options, r.text(F.egressNodeName));
    if (egressNode !== undefined && !isSetBytes(r, F.egressNodeUUID)) c.fixed(F.egressNodeUUID, uidBytes(egressNode.uid) || ZERO_V6);
  }
}

// ---- the splice ----

function writeChange(c: ProxyChanges, k: number, o: Uint8Array, p: number): number {
  o[p++] = 2;
  switch (c.kind[k]) {
    case KIND_LONG: return writeLong(o, p, c.num[k]!);
    case KIND_FIXED: {
      const s = c.str[k]!;
      for (let i = 0; i < s.length; i++) o[p + i] = s.charCodeAt(i);
      return p + s.length;
    }
    default: {
      const s = c.str[k]!;
      const n = Buffer.byteLength(s, 'utf8');
      p = writeLong(o, p, n);
      return p + (n === 0 ? 0 : (o as Buffer).write(s, p, n, 'utf8'));
    }
  }
}

/** The changes' largest encoding. */
function changesRoom(c: ProxyChanges): number {
  let room = 0;
  for (let k = 0; k < c.count; k++) room += 11 + (c.kind[k] === KIND_LONG ? 0 : 3 * c.str[k]!.length);
  return room;
}

/** Views of the batches records are read from (one per batch, not per record), and of the framing header. */
const sourceViews = new ViewCache();
const headerViews = new ViewCache();

/** Writes the framed output of a record scanned with the current schema: its bytes with the changes spliced in. */
export function spliceRecord(r: ScannedRecord, c: ProxyChanges, header: Buffer, out: RecordBuffer): Buffer {
  c.sort();
  const src = r.buf;
  const sv = sourceViews.of(src);
  out.reserve(header.length + (r.end - r.bodyStart) + changesRoom(c));
  const o = out.buf;
  const dv = out.view;
  const start = out.pos;
  let p = copyBytes(o, dv, start, header, headerViews.of(header), 0, header.length);
  let from = r.bodyStart;
  for (let k = 0; k < c.count; k++) {
    const i = c.field[k]!;
    p = copyBytes(o, dv, p, src, sv, from, r.at[i]! - from);
    p = writeChange(c, k, o, p);
    from = r.at[i + 1]!;
  }
  p = copyBytes(o, dv, p, src, sv, from, r.at[FIELD_COUNT]! - from);
  out.pos = p;
  return o.subarray(start, p);
}

/** The reference writer: the record decoded by avsc, the changes set by field name, encoded again. */
export function referenceProxy(value: Buffer, c: ProxyChanges, reader: AvroReader<FlowRecord>, writer: AvroWriter<FlowRecord>): Buffer {
  const record = reader.decode(value) as Record<string, unknown>;
  for (let k = 0; k < c.count; k++) {
    const name = FLOW_RECORD_FIELDS[c.field[k]!]!.name;
    record[name] = c.kind[k] === KIND_LONG ? c.num[k] : c.kind[k] === KIND_FIXED ? Buffer.from(c.str[k]!, 'latin1') : c.str[k];
  }
  return writer.encode(record as FlowRecord);
}

/** The framing header of proxied records. */
export function proxyHeader(framing: AvroFraming = { kind: 'single-object' }): Buffer {
  return framingHeader(framing, FLOW_RECORD_SCHEMA);
}
