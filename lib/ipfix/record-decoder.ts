// Data Record values (RFC 7011 §3.4.3, value encodings §6.1): a decoder compiled once per template
// into straight-line code, one typed read per field at precomputed offsets (see record-layout.ts for
// the record layout). Bounds are checked once per run of fixed-length fields and once per
// variable-length field, not per value. The function is named decodeTemplate<id> in profiles.
import { compileFunction } from './codegen.js';
import { copyBytes, readBoolean, readUnsigned, readValue } from './field-codec.js';
import { decodeBasicList, decodeSubTemplateList, decodeSubTemplateMultiList } from './lists.js';
import { MAX_COMPILED_FIELDS, type RecordLayout, recordLayout, segmentsOf, varlenPrefixSource } from './record-layout.js';
import type { TemplateStore } from './template-store.js';
import { decodeUtf8, formatIpv4, formatIpv6, formatMac } from './text.js';
import { type AbstractType, type DataRecord, type Template, type TemplateField, VARIABLE_LENGTH } from './types.js';

/** State shared by the decoders of one message: where lists find their templates, and nesting depth. */
export interface DecodeContext {
  readonly store: TemplateStore | undefined;
  readonly observationDomainId: number;
  /** Current list nesting depth and its cap (RFC 6313 lists can nest; bounded to keep the stack small). */
  depth: number;
  readonly maxDepth: number;
  /** Set by a decoder to the offset after the record it returned. */
  next: number;
  /** Compile templates at first use (see recordDecoder). */
  readonly compileNow?: boolean | undefined;
}

/** Decodes the record at b[o..end); undefined when it is truncated. Throws IpfixError for a bad value. */
export type DecodeRecord = (b: Uint8Array, o: number, end: number, cx: DecodeContext) => DataRecord | undefined;

export interface RecordDecoder {
  readonly layout: RecordLayout;
  readonly decode: DecodeRecord;
}

function u64(b: Uint8Array, p: number): number | bigint {
  const hi = (b[p] as number) * 0x1000000 + (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
  if (hi >= 0x200000) return readUnsigned(b, p, 8); // beyond 2^53: bigint
  return hi * 4294967296 + (b[p + 4] as number) * 0x1000000 + (((b[p + 5] as number) << 16) | ((b[p + 6] as number) << 8) | (b[p + 7] as number));
}

const helpers = {
  u64, oct: copyBytes, ip4: formatIpv4, ip6: formatIpv6, mac: formatMac, str: decodeUtf8, bool: readBoolean, rv: readValue,
  bl: decodeBasicList, stl: decodeSubTemplateList, stml: decodeSubTemplateMultiList,
};

/** Source of an expression reading a `type` value of `len` bytes at position expression `at`. */
function readExpression(type: AbstractType, at: string, len: string, fixedLength: number | undefined): string {
  const full = (n: number) => fixedLength === n;
  switch (type) {
    // Unsigned integers in 1, 2 or 4 bytes, whatever their natural size (reduced-size encoding, §6.2).
    case 'unsigned8': case 'unsigned16': case 'unsigned32': case 'unsigned64': case 'dateTimeSeconds':
      if (full(1)) return `b[${at}]`;
      if (full(2)) return `((b[${at}] << 8) | b[${at} + 1])`;
      if (full(4)) return `(b[${at}] * 16777216 + ((b[${at} + 1] << 16) | (b[${at} + 2] << 8) | b[${at} + 3]))`;
      if (full(8) && type !== 'dateTimeSeconds') return `u64(b, ${at})`;
      break;
    case 'dateTimeMilliseconds': if (full(8)) return `u64(b, ${at})`; break;
    case 'signed8': if (full(1)) return `((b[${at}] << 24) >> 24)`; break;
    case 'signed16': if (full(2)) return `(((b[${at}] << 24) >> 16) | b[${at} + 1])`; break;
    case 'signed32': if (full(4)) return `((b[${at}] << 24) | (b[${at} + 1] << 16) | (b[${at} + 2] << 8) | b[${at} + 3])`; break;
    case 'boolean': if (full(1)) return `bool(b[${at}])`; break;
    case 'ipv4Address': if (full(4)) return `ip4(b, ${at})`; break;
    case 'ipv6Address': if (full(16)) return `ip6(b, ${at})`; break;
    case 'macAddress': if (full(6)) return `mac(b, ${at})`; break;
    case 'string': return fixedLength === undefined ? `(${len} === 0 ? '' : str(b, ${at}, ${len}))` : `str(b, ${at}, ${len})`;
    case 'octetArray': return `oct(b, ${at}, ${len})`;
    case 'basicList': return `bl(b, ${at}, ${len}, cx)`;
    case 'subTemplateList': return `stl(b, ${at}, ${len}, cx)`;
    case 'subTemplateMultiList': return `stml(b, ${at}, ${len}, cx)`;
    default: break;
  }
  return `rv(${JSON.stringify(type)}, b, ${at}, ${len})`;
}

function compileDecoder(template: Template): DecodeRecord {
  const lines = ['let p = o, l = 0;'];
  const field = (i: number): TemplateField => template.fields[i] as TemplateField;
  for (const s of segmentsOf(template)) {
    if (s.kind === 'fixed') {
      lines.push(`if (p + ${s.length} > end) return undefined;`);
      for (const f of s.fields) lines.push(`const v${f.index} = ${readExpression(field(f.index).ie.type, `p + ${f.offset}`, String(f.length), f.length)};`);
      lines.push(`p += ${s.length};`);
    } else {
      lines.push(varlenPrefixSource('undefined'), `const v${s.index} = ${readExpression(field(s.index).ie.type, 'p', 'l', undefined)};`, 'p += l;');
    }
  }
  lines.push('cx.next = p;', `return { template: tpl, values: [${template.fields.map((_, i) => `v${i}`).join(', ')}] };`);
  return compileFunction<DecodeRecord>(`decodeTemplate${template.id}`, ['b', 'o', 'end', 'cx'], lines.join('\n'), { ...helpers, tpl: template });
}

/** The same decoding as compileDecoder's output, one field at a time through the generic readers. */
export function interpretedDecoder(template: Template): DecodeRecord {
  const fields = template.fields;
  const n = fields.length;
  return (b, o, end, cx) => {
    let p = o;
    const values: DataRecord['values'] = new Array(n);
    for (let i = 0; i < n; i++) {
      const f = fields[i] as TemplateField;
      let len = f.length;
      if (len === VARIABLE_LENGTH) {
        if (p >= end) return undefined;
        len = b[p++] as number;
        if (len === 255) {
          if (p + 2 > end) return undefined;
          len = ((b[p] as number) << 8) | (b[p + 1] as number);
          p += 2;
        }
      }
      if (p + len > end) return undefined;
      values[i] = decodeFieldValue(f, b, p, len, cx);
      p += len;
    }
    cx.next = p;
    return { template, values };
  };
}

/**
 * Records a template's decoder interprets before it is compiled. Compiling costs about as much as
 * interpreting a few hundred records, so compiling only templates that carry that much data bounds
 * what an exporter can make the collector spend by defining (or redefining) templates it hardly uses
 * to a constant factor of the bytes it sends.
 */
export const COMPILE_AFTER_RECORDS = 128;

/** Interprets a template's first records, then compiles it (tier-up) unless it is huge. */
class TieredDecoder implements RecordDecoder {
  readonly layout: RecordLayout;
  decode: DecodeRecord;
  readonly #template: Template;
  #interpreted = 0;
  #compiled = false;

  constructor(template: Template) {
    this.#template = template;
    this.layout = recordLayout(template);
    const interpret = interpretedDecoder(template);
    // Callers may hold this function for a whole data set after the swap: it forwards once compiled.
    this.decode = template.fields.length > MAX_COMPILED_FIELDS
      ? interpret
      : (b, o, end, cx) => (this.#compiled || ++this.#interpreted > COMPILE_AFTER_RECORDS ? this.compile()(b, o, end, cx) : interpret(b, o, end, cx));
  }

  compile(): DecodeRecord {
    if (!this.#compiled && this.#template.fields.length <= MAX_COMPILED_FIELDS) {
      this.decode = compileDecoder(this.#template);
      this.#compiled = true;
    }
    return this.decode;
  }
}

const decoders = new WeakMap<Template, TieredDecoder>();

/**
 * The decoder of a template, cached with it: interpreted for its first COMPILE_AFTER_RECORDS records,
 * compiled after that (templates of more than MAX_COMPILED_FIELDS fields stay interpreted). `decode`
 * changes when the template is compiled, so read it per data set, not once. `compileNow` skips the
 * interpreted phase (tests, benchmarks, trusted templates).
 */
export function recordDecoder(template: Template, compileNow = false): RecordDecoder {
  let d = decoders.get(template);
  if (d === undefined) {
    d = new TieredDecoder(template);
    decoders.set(template, d);
  }
  if (compileNow) d.compile();
  return d;
}

/**
 * Decodes one field located by scanRecord (content at b[start..start+length)), for callers that
 * materialise single fields, like the ingest's transcoder.
 */
export function decodeFieldValue(field: TemplateField, b: Uint8Array, start: number, length: number, cx: DecodeContext): DataRecord['values'][number] {
  switch (field.ie.type) {
    case 'basicList': return decodeBasicList(b, start, length, cx);
    case 'subTemplateList': return decodeSubTemplateList(b, start, length, cx);
    case 'subTemplateMultiList': return decodeSubTemplateMultiList(b, start, length, cx);
    default: return readValue(field.ie.type, b, start, length);
  }
}
