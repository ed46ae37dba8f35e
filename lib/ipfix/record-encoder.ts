// Data Record encoding (RFC 7011 §3.4.3, §6.1, §7): the mirror of record-decoder.ts, compiled once per
// template into straight-line writes. A writer returns the position after the record, or -1 when the
// record does not fit before `cap` (the message encoder then starts a new message); it never writes
// past `cap`. Values that do not fit their field throw IpfixError BAD_VALUE.
import { compileFunction } from './codegen.js';
import { cachedString, ipv4Value, putEncodedString, viewOf } from './encoder-caches.js';
import { IPFIX_ERR, IpfixError } from './errors.js';
import { writeValue } from './field-codec.js';
import { putU16, putU32 } from './message-header.js';
import { segmentsOf } from './record-layout.js';
import { encodeUtf8Into } from './text.js';
import {
  type AbstractType, type BasicList, type EncodableValue, type SubTemplateList, type SubTemplateMultiList, type Template, VARIABLE_LENGTH,
} from './types.js';
import { textOf, Utf8Bytes } from './utf8-bytes.js';
import { VARLEN_LONG } from './varlen.js';

export type EncodeRecord = (b: Uint8Array, p: number, cap: number, values: readonly EncodableValue[]) => number;

function bad(type: AbstractType, value: unknown): IpfixError {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new IpfixError(IPFIX_ERR.BAD_VALUE, `${shown} is not a valid ${type}`, { type });
}

function w64(d: DataView, p: number, x: EncodableValue): void {
  if (typeof x === 'number' && x >= 0 && x <= Number.MAX_SAFE_INTEGER && Number.isInteger(x)) {
    const hi = Math.floor(x / 4294967296);
    d.setUint32(p, hi);
    d.setUint32(p + 4, x - hi * 4294967296);
    return;
  }
  if (typeof x === 'bigint' && x >= 0n && x < 1n << 64n) {
    d.setBigUint64(p, x);
    return;
  }
  throw bad('unsigned64', x);
}

function wip4(d: DataView, p: number, x: EncodableValue): void {
  if (x instanceof Uint8Array && x.length === 4) {
    d.setUint32(p, ((x[0] as number) << 24 | (x[1] as number) << 16 | (x[2] as number) << 8 | (x[3] as number)) >>> 0);
    return;
  }
  const n = typeof x === 'string' ? ipv4Value(x) : -1;
  if (n < 0) throw bad('ipv4Address', x);
  d.setUint32(p, n);
}

function uint(type: AbstractType, max: number) {
  return (x: EncodableValue): number => {
    if (typeof x === 'number' && x >= 0 && x <= max && Number.isInteger(x)) return x;
    if (typeof x === 'bigint' && x >= 0n && x <= BigInt(max)) return Number(x);
    throw bad(type, x);
  };
}
const chk8 = uint('unsigned8', 0xff);
const chk16 = uint('unsigned16', 0xffff);
const chk32 = uint('unsigned32', 0xffffffff);

/**
 * Writes a variable-length string (prefix + UTF-8); returns the next position or -1 without room.
 * Repeated names come from the cache as whole words; others go through a per-character loop (measured
 * faster for short ASCII than Buffer#latin1Write, Buffer#utf8Write and TextEncoder#encodeInto).
 */
function wstr(d: DataView, b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  if (x instanceof Utf8Bytes) return wutf8(d, b, p, cap, x);
  if (typeof x !== 'string') throw bad('string', x);
  const cached = cachedString(x);
  if (cached !== undefined) return p + (cached[0] as number) <= cap ? putEncodedString(d, p, cached) : -1;
  const n = x.length;
  if (n < VARLEN_LONG && p + 1 + n <= cap) {
    let i = 0;
    for (; i < n; i++) {
      const c = x.charCodeAt(i);
      if (c >= 0x80) break;
      b[p + 1 + i] = c;
    }
    if (i === n) {
      b[p] = n;
      return p + 1 + n;
    }
  }
  return writeVariable('string', b, p, cap, x);
}

/**
 * Writes UTF-8 bytes already held: ASCII ones, in the 1-byte-prefix form, copied as they are; others go
 * through their text, so that the bytes on the wire are those of the string either way.
 */
function wutf8(d: DataView, b: Uint8Array, p: number, cap: number, x: Utf8Bytes): number {
  const { buf, start, length: n } = x;
  if (n >= VARLEN_LONG) return wstr(d, b, p, cap, x.toString());
  if (p + 1 + n > cap) return -1;
  for (let i = 0; i < n; i++) {
    const c = buf[start + i] as number;
    if (c >= 0x80) return wstr(d, b, p, cap, x.toString());
    b[p + 1 + i] = c;
  }
  b[p] = n;
  return p + 1 + n;
}

/** Writes any value as a variable-length field: content at p+3, moved down when a 1-byte prefix suffices. */
function writeVariable(type: AbstractType, b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  const start = p + 3;
  const n = writeContent(type, b, start, cap, x);
  if (n < 0) return -1;
  if (n < VARLEN_LONG) {
    b.copyWithin(p + 1, start, start + n);
    b[p] = n;
    return p + 1 + n;
  }
  if (n > 65535) throw new IpfixError(IPFIX_ERR.RECORD_TOO_LARGE, `a ${type} value of ${n} bytes exceeds 65535`, { type });
  b[p] = VARLEN_LONG;
  putU16(b, p + 1, n);
  return start + n;
}

const NATURAL: Partial<Record<AbstractType, number>> = {
  unsigned8: 1, unsigned16: 2, unsigned32: 4, unsigned64: 8, signed8: 1, signed16: 2, signed32: 4, signed64: 8,
  float32: 4, float64: 8, boolean: 1, macAddress: 6, dateTimeSeconds: 4, dateTimeMilliseconds: 8,
  dateTimeMicroseconds: 8, dateTimeNanoseconds: 8, ipv4Address: 4, ipv6Address: 16,
};

/** Writes the content of a variable-length value at b[p..cap); returns its length or -1 without room. */
function writeContent(type: AbstractType, b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  switch (type) {
    case 'string': {
      const text = textOf(x);
      if (typeof text !== 'string') throw bad(type, x);
      return encodeUtf8Into(text, b, p, Math.min(cap - p, 65535));
    }
    case 'octetArray':
      if (!(x instanceof Uint8Array)) throw bad(type, x);
      if (p + x.length > cap) return -1;
      b.set(x, p);
      return x.length;
    case 'basicList': return writeBasicList(b, p, cap, x);
    case 'subTemplateList': return writeSubTemplateList(b, p, cap, x);
    case 'subTemplateMultiList': return writeSubTemplateMultiList(b, p, cap, x);
    default: {
      const n = NATURAL[type] as number;
      if (p + n > cap) return -1;
      writeValue(type, b, p, n, x);
      return n;
    }
  }
}

function isList<K extends string>(x: EncodableValue, kind: K): x is Extract<BasicList | SubTemplateList | SubTemplateMultiList, { kind: K }> {
  return typeof x === 'object' && x !== null && !(x instanceof Uint8Array) && !(x instanceof Utf8Bytes) && x.kind === kind;
}

function writeBasicList(b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  if (!isList(x, 'basicList')) throw bad('basicList', x);
  const { ie, fieldLength } = x;
  const head = ie.pen === 0 ? 5 : 9;
  if (p + head > cap) return -1;
  b[p] = x.semantic;
  putU16(b, p + 1, ie.pen === 0 ? ie.id : ie.id | 0x8000);
  putU16(b, p + 3, fieldLength);
  if (ie.pen !== 0) putU32(b, p + 5, ie.pen);
  let q = p + head;
  for (const v of x.values) {
    if (fieldLength === VARIABLE_LENGTH) {
      q = writeVariable(ie.type, b, q, cap, v);
      if (q < 0) return -1;
    } else {
      if (q + fieldLength > cap) return -1;
      const n = writeFixedOrList(ie.type, b, q, cap, fieldLength, v);
      if (n < 0) return -1;
      q += fieldLength;
    }
  }
  return q - p;
}

function writeFixedOrList(type: AbstractType, b: Uint8Array, p: number, cap: number, len: number, v: EncodableValue): number {
  if (type === 'basicList' || type === 'subTemplateList' || type === 'subTemplateMultiList') {
    const n = writeContent(type, b, p, cap, v);
    if (n >= 0 && n !== len) throw bad(type, v);
    return n;
  }
  writeValue(type, b, p, len, v);
  return len;
}

function writeRecords(b: Uint8Array, p: number, cap: number, template: Template, records: readonly { values: readonly EncodableValue[] }[]): number {
  const encode = recordEncoder(template);
  let q = p;
  for (const r of records) {
    q = encode(b, q, cap, r.values);
    if (q < 0) return -1;
  }
  return q;
}

function writeSubTemplateList(b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  if (!isList(x, 'subTemplateList')) throw bad('subTemplateList', x);
  if (p + 3 > cap) return -1;
  b[p] = x.semantic;
  putU16(b, p + 1, x.templateId);
  if (x.undecoded !== undefined) {
    if (p + 3 + x.undecoded.length > cap) return -1;
    b.set(x.undecoded, p + 3);
    return 3 + x.undecoded.length;
  }
  const first = x.records[0];
  const q = first === undefined ? p + 3 : writeRecords(b, p + 3, cap, first.template, x.records);
  return q < 0 ? -1 : q - p;
}

function writeSubTemplateMultiList(b: Uint8Array, p: number, cap: number, x: EncodableValue): number {
  if (!isList(x, 'subTemplateMultiList')) throw bad('subTemplateMultiList', x);
  if (p + 1 > cap) return -1;
  b[p] = x.semantic;
  let q = p + 1;
  for (const e of x.entries) {
    if (q + 4 > cap) return -1;
    putU16(b, q, e.templateId);
    let r: number;
    if (e.undecoded !== undefined) {
      if (q + 4 + e.undecoded.length > cap) return -1;
      b.set(e.undecoded, q + 4);
      r = q + 4 + e.undecoded.length;
    } else {
      const first = e.records[0];
      r = first === undefined ? q + 4 : writeRecords(b, q + 4, cap, first.template, e.records);
    }
    if (r < 0) return -1;
    if (r - q > 65535) throw new IpfixError(IPFIX_ERR.RECORD_TOO_LARGE, 'subTemplateMultiList entry exceeds 65535 bytes');
    putU16(b, q + 2, r - q);
    q = r;
  }
  return q - p;
}

function arity(templateId: number, fields: number, values: number): never {
  throw new IpfixError(IPFIX_ERR.BAD_VALUE, `template ${templateId} has ${fields} fields but the record has ${values} values`, { templateId });
}

const helpers = { arity, viewOf, chk8, chk16, chk32, w64, wip4, wstr, wv: writeValue, wvar: writeVariable, wfl: writeFixedOrList };

/** Source of statements writing v[i] into a fixed field of `len` bytes at position expression `at`. */
function writeFixed(type: AbstractType, i: number, at: string, len: number): string {
  const x = `v[${i}]`;
  switch (type) {
    // Unsigned integers in 1, 2 or 4 bytes, whatever their natural size (reduced-size encoding, §6.2).
    case 'unsigned8': case 'unsigned16': case 'unsigned32': case 'unsigned64': case 'dateTimeSeconds':
      if (len === 1) return `b[${at}] = chk8(${x});`;
      if (len === 2) return `d.setUint16(${at}, chk16(${x}));`;
      if (len === 4) return `d.setUint32(${at}, chk32(${x}));`;
      if (len === 8 && type !== 'dateTimeSeconds') return `w64(d, ${at}, ${x});`;
      break;
    case 'dateTimeMilliseconds': if (len === 8) return `w64(d, ${at}, ${x});`; break;
    case 'ipv4Address': if (len === 4) return `wip4(d, ${at}, ${x});`; break;
    case 'basicList': case 'subTemplateList': case 'subTemplateMultiList':
      return `if (wfl(${JSON.stringify(type)}, b, ${at}, cap, ${len}, ${x}) < 0) return -1;`;
    default: break;
  }
  return `wv(${JSON.stringify(type)}, b, ${at}, ${len}, ${x});`;
}

function compileEncoder(template: Template): EncodeRecord {
  const lines = [`if (v.length !== ${template.fields.length}) arity(${template.id}, ${template.fields.length}, v.length);`, 'const d = viewOf(b);'];
  for (const s of segmentsOf(template)) {
    if (s.kind === 'fixed') {
      lines.push(`if (p + ${s.length} > cap) return -1;`);
      for (const f of s.fields) lines.push(writeFixed((template.fields[f.index] as Template['fields'][number]).ie.type, f.index, `p + ${f.offset}`, f.length));
      lines.push(`p += ${s.length};`);
    } else {
      const type = (template.fields[s.index] as Template['fields'][number]).ie.type;
      // An empty string (common: unset policy names) is one zero byte, written without a call.
      lines.push(type === 'string'
        ? `if (v[${s.index}] === '' && p < cap) b[p++] = 0; else { p = wstr(d, b, p, cap, v[${s.index}]); if (p < 0) return -1; }`
        : `p = wvar(${JSON.stringify(type)}, b, p, cap, v[${s.index}]); if (p < 0) return -1;`);
    }
  }
  lines.push('return p;');
  return compileFunction<EncodeRecord>(`encodeTemplate${template.id}`, ['b', 'p', 'cap', 'v'], lines.join('\n'), helpers);
}

const encoders = new WeakMap<Template, EncodeRecord>();

/** The compiled writer of a template's data records, built on first use and cached with the template. */
export function recordEncoder(template: Template): EncodeRecord {
  let e = encoders.get(template);
  if (e === undefined) {
    e = compileEncoder(template);
    encoders.set(template, e);
  }
  return e;
}
