// The fast way to read framed FlowRecords: a scanner compiled once per writer schema (as avsc compiles
// its readers, and as ingest/records/transcode.ts compiles the IPFIX → Avro direction) that walks the
// Avro body and leaves, for every field of the current schema, where it is and what it holds, in typed
// arrays reused from record to record:
//   num[i]    the value of an int, long or enum field (the enum's symbol index); NaN when null or absent
//   start[i]  the offset in the buffer of a string, bytes or fixed value (extras: of the whole array);
//             -1 when null or absent
//   length[i] its length in bytes (extras: num[i] holds the item count)
//   at[i]     the offset where field i's encoding starts (its union index), at[FIELD_COUNT] the body's
//             end; only for values written with the current schema into a record that asked for
//             positions (`spliceable`), for splicing. A record that never splices goes without: storing
//             them is a fifth of a scan.
// No object, string or Buffer is made per record: callers decode only the strings they need
// (buf.utf8Slice(start, start + length)) and copy byte ranges as they are. The reference path is avsc
// (flowRecordReader), and flow-record-scanner.test.ts checks both agree on random records.
//
// A writer schema's field order may differ from the current one and fields may be missing or extra
// (docs/schemas.md): fields are matched by name, extra ones skipped, missing ones left null.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import avro from 'avsc';
import { compileFunction } from '../lib/ipfix/codegen.js';
import { FlowaggError } from '../lib/errors.js';
import { SCHEMA_BAD_BODY, SCHEMA_BAD_FRAMING, SCHEMA_UNKNOWN_WRITER } from './errors.js';
import { schemaFingerprint, SINGLE_OBJECT_MARKER } from './avro.js';
import { type ExtraField, FLOW_RECORD_FIELDS, FLOW_RECORD_HISTORY, FLOW_RECORD_SCHEMA } from './flow-record.js';

export const FIELD_COUNT = FLOW_RECORD_FIELDS.length;

/** Field index by name in the current schema: `s.num[FIELD.protocolIdentifier]`. */
export const FIELD: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(FLOW_RECORD_FIELDS.map((f, i) => [f.name, i])));

/** The index of a field of the current schema; throws for a name the schema does not have. */
export function fieldIndex(name: string): number {
  const i = FIELD[name];
  if (i === undefined) throw new Error(`the FlowRecord schema has no field ${name}`);
  return i;
}

const SINGLE_OBJECT_HEADER = 10;

/** Buffer's native slices, which toString(encoding, ...) calls after checking its arguments. */
interface NativeSlicer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

/** The text of b[start, end), decoded as UTF-8. */
export function utf8(b: Buffer, start: number, end: number): string {
  return (b as unknown as NativeSlicer).utf8Slice(start, end);
}

/** b[start, end) as a string of one character per byte (how the processor interns addresses and keys). */
export function latin1(b: Buffer, start: number, end: number): string {
  return (b as unknown as NativeSlicer).latin1Slice(start, end);
}
const CONFLUENT_HEADER = 5;

export class ScannedRecord {
  /** `positions`: whether scans fill `at`, which only splicing needs (proxy mode, a pass-through). */
  constructor(readonly positions = false) {}

  readonly num = new Float64Array(FIELD_COUNT);
  readonly start = new Int32Array(FIELD_COUNT);
  readonly length = new Int32Array(FIELD_COUNT);
  readonly at = new Int32Array(FIELD_COUNT + 1);
  /** The buffer holding the value scanned last, perhaps among other bytes (scanRange): every offset is into it. */
  buf: Buffer = Buffer.alloc(0);
  /** Offset of the Avro body (after the framing header). */
  bodyStart = 0;
  /** Offset after the value: buf may hold other records' bytes after it. */
  end = 0;
  /** Whether `at` is valid and byte ranges can be spliced: written with the current schema and scanned with positions. */
  spliceable = false;

  /** A string field's value ("" when null). */
  text(i: number): string {
    const s = this.start[i]!;
    return s < 0 ? '' : utf8(this.buf, s, s + this.length[i]!);
  }

  /** A string field's value, or null. */
  textOrNull(i: number): string | null {
    const s = this.start[i]!;
    return s < 0 ? null : utf8(this.buf, s, s + this.length[i]!);
  }

  /** Whether a string field holds a non-empty string. */
  hasText(i: number): boolean {
    return this.length[i]! > 0 && this.start[i]! >= 0;
  }

  /** A number field's value, 0 when null. */
  num0(i: number): number {
    const v = this.num[i]!;
    return v === v ? v : 0;
  }
}

/** Scans the Avro body at b[p..end) into r; returns the offset after it, or -1 when it is malformed. */
type ScanBody = (b: Buffer, p: number, end: number, r: ScannedRecord) => number;

// ---- helpers the generated code calls ----

/** Where the last varint read by zz ended (a typed array: a cheaper read from generated code than a call). */
const END = new Int32Array(1);
/** Where zz leaves its value before returning it. */
const VALUE = new Float64Array(1);

/** Reads a zig-zag varint at p (int or long, up to 2^53); the position after it is left in END[0]. */
function zz(b: Buffer, p: number): number {
  zzInto(b, p, VALUE, 0);
  return VALUE[0]!;
}

/**
 * Reads a zig-zag varint at p into out[i]; the position after it is left in END[0]. A time in ms is past
 * 2^31: returned from a call it would be boxed, a heap number per field per record (measured: 50 MB per
 * 100,000 flows of input), stored into the typed array it is not.
 */
function zzInto(b: Buffer, p: number, out: Float64Array, i: number): void {
  // Up to four bytes (28 bits) in int arithmetic; times in ms and large counters go on in floats.
  let c = b[p++]!;
  let v = c & 0x7f;
  if (c >= 0x80) {
    c = b[p++]!;
    v |= (c & 0x7f) << 7;
    if (c >= 0x80) {
      c = b[p++]!;
      v |= (c & 0x7f) << 14;
      if (c >= 0x80) {
        c = b[p++]!;
        v |= (c & 0x7f) << 21;
        if (c >= 0x80) {
          zzLong(b, p, v, out, i);
          return;
        }
      }
    }
  }
  END[0] = p;
  out[i] = (v >>> 1) ^ -(v & 1);
}

/**
 * The rest of a varint beyond its first 28 bits `low`, into out[i]: the next 28 bits in int arithmetic too
 * (times in ms and counters end there), the last two bytes of a 64-bit value in floats.
 */
function zzLong(b: Buffer, p: number, low: number, out: Float64Array, i: number): void {
  let hi = 0;
  let shift = 0;
  let c = 0x80;
  // Past the end of the buffer c is undefined: the loops end and the caller's bounds check fails.
  for (let k = 0; k < 4 && c >= 0x80; k++, shift += 7) {
    c = b[p++]!;
    hi |= (c & 0x7f) << shift;
  }
  let v = low + (hi >>> 0) * 2 ** 28;
  for (let scale = 2 ** 56; c >= 0x80 && scale < 2 ** 70; scale *= 0x80) {
    c = b[p++]!;
    v += (c & 0x7f) * scale;
  }
  END[0] = p;
  out[i] = (low & 1) === 1 ? -((v + 1) / 2) : v / 2;
}

/** Skips an array of ExtraField records (pen long, id int, value bytes) at p; returns where it ends, the item count in END[0]. */
function skipExtras(b: Buffer, p: number, end: number): number {
  let count = 0;
  for (;;) {
    let n = zz(b, p);
    p = END[0]!;
    if (n === 0) break;
    if (n < 0) {
      n = -n;
      zz(b, p); // block size in bytes, not needed
      p = END[0]!;
    }
    for (let k = 0; k < n; k++) {
      if (p >= end) return -1;
      zz(b, p);
      zz(b, END[0]!);
      const len = zz(b, END[0]!);
      if (len < 0) return -1;
      p = END[0]! + len;
    }
    count += n;
    if (p > end) return -1;
  }
  END[0] = count;
  return p;
}


const EXTRAS = FIELD.extras!;

/** The extras of the record scanned last, each value a view of its buffer (the scan checked their bounds). */
export function scannedExtras(r: ScannedRecord): ExtraField[] {
  const out: ExtraField[] = [];
  const b = r.buf;
  let p = r.start[EXTRAS]!;
  if (p < 0 || r.num[EXTRAS] === 0) return out;
  for (let n = zz(b, p); n !== 0; n = zz(b, p)) {
    p = END[0]!;
    if (n < 0) {
      n = -n;
      zz(b, p); // block size in bytes
      p = END[0]!;
    }
    for (let k = 0; k < n; k++) {
      const pen = zz(b, p);
      const id = zz(b, END[0]!);
      const len = zz(b, END[0]!);
      p = END[0]! + len;
      out.push({ pen, id, value: b.subarray(p - len, p) });
    }
  }
  return out;
}

const helpers = { zz, zzInto, skipExtras, END };

/** `target = ` the zig-zag varint at p, p moved past it; one byte decoded inline (most ints are small). */
const varint = (target: string) => `c = b[p]; if (c < 0x80) { ${target}(c >>> 1) ^ -(c & 1); p++; } else { ${target}zz(b, p); p = END[0]; }`;

/** r.num[i] = the zig-zag varint at p, p moved past it, without boxing a long value. */
const numVarint = (i: number) => `c = b[p]; if (c < 0x80) { num[${i}] = (c >>> 1) ^ -(c & 1); p++; } else { zzInto(b, p, num, ${i}); p = END[0]; }`;

// ---- code generation ----

type AvscType = avro.Type & { typeName: string; size?: number; types?: AvscType[]; itemsType?: AvscType; underlyingType?: AvscType };

function valueCode(t: AvscType, i: number, path: string): string {
  const store = i >= 0;
  switch (t.typeName) {
    case 'int':
    case 'long':
    case 'enum':
      return store ? numVarint(i) : varint('v = ');
    case 'string':
    case 'bytes':
      return `${varint('v = ')} if (v < 0) return -1; ${store ? `start[${i}] = p; length[${i}] = v; ` : ''}p += v;`;
    case 'fixed':
      return `${store ? `start[${i}] = p; length[${i}] = ${t.size!}; ` : ''}p += ${t.size!};`;
    case 'array':
      return `{ ${store ? `start[${i}] = p; ` : ''}const q = skipExtras(b, p, end); if (q < 0) return -1; ${store ? `length[${i}] = q - p; num[${i}] = END[0]; ` : ''}p = q; }`;
    default:
      if (t.underlyingType !== undefined) return valueCode(t.underlyingType, i, path);
      throw new Error(`${path}: the scanner cannot read Avro type ${t.typeName}`);
  }
}

/** A null field: no value, no bytes (its length is left as it was: readers check start first). */
function nullCode(i: number): string {
  return i < 0 ? '' : `num[${i}] = NaN; start[${i}] = -1;`;
}

function fieldCode(t: AvscType, i: number, name: string): string {
  if (t.typeName !== 'union:unwrapped' && t.typeName !== 'union:wrapped') return valueCode(t, i, name);
  const branches = t.types!;
  if (branches.length !== 2 || branches[0]!.typeName !== 'null') throw new Error(`${name}: the scanner reads only ["null", T] unions`);
  return `{ const u = b[p++]; if (u === 0) { ${nullCode(i)} } else if (u === 2) { ${valueCode(branches[1]!, i, name)} } else return -1; }`;
}

/** A scan of `schema`'s bodies; `positions` (the current schema only) fills `at` too. */
function compileScanner(schema: unknown, positions: boolean): ScanBody {
  const type = avro.Type.forSchema(schema as avro.Schema) as unknown as { fields: { name: string; type: AvscType }[] };
  const present = new Set<number>();
  const lines: string[] = [];
  for (const f of type.fields) {
    const i = FIELD[f.name] ?? -1;
    if (i >= 0) present.add(i);
    if (positions) lines.push(`at[${i}] = p;`);
    lines.push(fieldCode(f.type, i, f.name));
  }
  // Fields of the current schema the writer does not have: null, whatever the last record held.
  const absent = FLOW_RECORD_FIELDS.map((_, i) => i).filter((i) => !present.has(i));
  if (positions) lines.push(`at[${FIELD_COUNT}] = p;`);
  const body = ['let c = 0, v = 0;', 'const num = r.num, start = r.start, length = r.length, at = r.at;', ...absent.map(nullCode), ...lines, 'return p;'].join('\n');
  return compileFunction<ScanBody>(positions ? 'scanFlowRecordPositions' : 'scanFlowRecord', ['b', 'p', 'end', 'r'], body, helpers);
}

interface Writer {
  readonly scan: ScanBody;
  /** The current schema's scan that fills `at` as well; undefined for older writers, which cannot be spliced. */
  readonly scanPositions: ScanBody | undefined;
}

/**
 * Scans framed FlowRecords of the current schema and of every earlier one in schemas/history (and any
 * registered later), single-object or Confluent framed.
 */
export class FlowRecordScanner {
  private readonly byFingerprint = new Map<bigint, Writer>();
  private readonly byConfluentId = new Map<number, Writer>();
  private readonly currentLo: number;
  private readonly currentHi: number;
  private readonly currentWriter: Writer;

  constructor(confluentId?: number, history: URL = FLOW_RECORD_HISTORY) {
    const fp = schemaFingerprint(FLOW_RECORD_SCHEMA);
    this.currentLo = fp.readUInt32LE(0);
    this.currentHi = fp.readUInt32LE(4);
    this.currentWriter = this.register(FLOW_RECORD_SCHEMA, confluentId);
    const files = existsSync(history) ? readdirSync(history).filter((f) => /^flow-record-v\d+\.avsc$/.test(f)) : [];
    for (const f of files) this.register(JSON.parse(readFileSync(new URL(f, history), 'utf8')));
  }

  register(schema: unknown, confluentId?: number): Writer {
    const fingerprint = schemaFingerprint(schema).readBigUInt64LE(0);
    let writer = this.byFingerprint.get(fingerprint);
    if (writer === undefined) {
      const current = schema === FLOW_RECORD_SCHEMA;
      writer = { scan: compileScanner(schema, false), scanPositions: current ? compileScanner(schema, true) : undefined };
      this.byFingerprint.set(fingerprint, writer);
    }
    if (confluentId !== undefined) this.byConfluentId.set(confluentId, writer);
    return writer;
  }

  /** Scans the framed value `buf` into `r`; throws FlowaggError (SCHEMA_*) when it cannot be read. */
  scan(buf: Buffer, r: ScannedRecord): void {
    this.scanRange(buf, 0, buf.length, r);
  }

  /** Scans the framed value in buf[start, end) (a record left in its batch's buffer) into `r`; throws as scan() does. */
  scanRange(buf: Buffer, start: number, end: number, r: ScannedRecord): void {
    const length = end - start;
    let writer: Writer | undefined;
    let offset: number;
    if (length >= SINGLE_OBJECT_HEADER && buf[start] === SINGLE_OBJECT_MARKER[0] && buf[start + 1] === SINGLE_OBJECT_MARKER[1]) {
      writer = buf.readUInt32LE(start + 2) === this.currentLo && buf.readUInt32LE(start + 6) === this.currentHi ? this.currentWriter : this.byFingerprint.get(buf.readBigUInt64LE(start + 2));
      if (writer === undefined) throw new FlowaggError(SCHEMA_UNKNOWN_WRITER, `unknown writer schema fingerprint ${buf.readBigUInt64LE(start + 2).toString(16)}`);
      offset = start + SINGLE_OBJECT_HEADER;
    } else if (length >= CONFLUENT_HEADER && buf[start] === 0) {
      writer = this.byConfluentId.get(buf.readUInt32BE(start + 1));
      if (writer === undefined) throw new FlowaggError(SCHEMA_UNKNOWN_WRITER, `unknown Confluent schema id ${buf.readUInt32BE(start + 1)}`);
      offset = start + CONFLUENT_HEADER;
    } else {
      throw new FlowaggError(SCHEMA_BAD_FRAMING, `not a framed Avro value: starts with ${buf.subarray(start, Math.min(start + 2, end)).toString('hex')}, length ${length}`);
    }
    r.buf = buf;
    r.bodyStart = offset;
    r.end = end;
    const scanPositions = r.positions ? writer.scanPositions : undefined;
    r.spliceable = scanPositions !== undefined;
    const bodyEnd = (scanPositions ?? writer.scan)(buf, offset, end, r);
    if (bodyEnd !== end) {
      throw new FlowaggError(SCHEMA_BAD_BODY, bodyEnd < 0 || bodyEnd > end ? 'Avro body malformed or truncated' : `${end - bodyEnd} trailing bytes after the Avro body`);
    }
  }
}
