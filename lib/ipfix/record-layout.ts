// Data Record layout (RFC 7011 §3.4.3): the field values of a template, in template order, with no
// separators; fixed-length fields take their template length, variable-length fields carry the
// length prefix of varlen.ts.
//
//  +--------------------------------------------------+
//  | Field Value 1 | Field Value 2 | ... | Field Value N |   (one Data Record)
//  +--------------------------------------------------+
//
// recordLayout(template) compiles, once per template, a scanner that locates every field of a record
// without decoding it: offsets of fixed fields are precomputed, only variable-length prefixes are read.
// The ingest's Avro transcoder builds on it; the value decoder (record-decoder.ts) shares its plan.
import { compileFunction } from './codegen.js';
import { type Template, VARIABLE_LENGTH } from './types.js';

export type ScanRecord = (buf: Uint8Array, offset: number, end: number, fieldStarts: Int32Array, fieldLengths: Int32Array) => number;

export interface RecordLayout {
  readonly fieldCount: number;
  /** Bytes of the shortest possible record (each variable-length field empty, 1-byte prefix). */
  readonly minLength: number;
  /** The record length when the template has no variable-length field, else undefined. */
  readonly fixedLength: number | undefined;
  /**
   * Locates the fields of the record at buf[offset..end): fieldStarts[i]/fieldLengths[i] receive the
   * content position and length of field i (without the varlen prefix). Returns the offset after the
   * record, or -1 when the record does not fit before `end` (truncated).
   */
  readonly scanRecord: ScanRecord;
}

/** A run of consecutive fixed-length fields, or one variable-length field. */
export type Segment =
  | { readonly kind: 'fixed'; readonly fields: readonly { readonly index: number; readonly offset: number; readonly length: number }[]; readonly length: number }
  | { readonly kind: 'varlen'; readonly index: number };

export function segmentsOf(template: Template): Segment[] {
  const segs: Segment[] = [];
  let run: { index: number; offset: number; length: number }[] = [];
  let runLength = 0;
  template.fields.forEach((f, index) => {
    if (f.length === VARIABLE_LENGTH) {
      if (run.length > 0) segs.push({ kind: 'fixed', fields: run, length: runLength });
      run = [];
      runLength = 0;
      segs.push({ kind: 'varlen', index });
    } else {
      run.push({ index, offset: runLength, length: f.length });
      runLength += f.length;
    }
  });
  if (run.length > 0) segs.push({ kind: 'fixed', fields: run, length: runLength });
  return segs;
}

/** Source that reads a varlen prefix at p into `l` and moves p to the content; returns `fail` when cut off. */
export function varlenPrefixSource(fail: string): string {
  return [
    `if (p >= end) return ${fail};`,
    'l = b[p++];',
    `if (l === 255) { if (p + 2 > end) return ${fail}; l = (b[p] << 8) | b[p + 1]; p += 2; }`,
    `if (p + l > end) return ${fail};`,
  ].join('\n');
}

function compileScanner(template: Template, segs: readonly Segment[]): ScanRecord {
  const lines = ['let p = o, l = 0;'];
  for (const s of segs) {
    if (s.kind === 'fixed') {
      lines.push(`if (p + ${s.length} > end) return -1;`);
      for (const f of s.fields) lines.push(`s[${f.index}] = p + ${f.offset}; n[${f.index}] = ${f.length};`);
      lines.push(`p += ${s.length};`);
    } else {
      lines.push(varlenPrefixSource('-1'), `s[${s.index}] = p; n[${s.index}] = l; p += l;`);
    }
  }
  lines.push('return p;');
  return compileFunction<ScanRecord>(`scanTemplate${template.id}`, ['b', 'o', 'end', 's', 'n'], lines.join('\n'), {});
}

/** Interpreted scanning, for templates too large to compile cheaply (see MAX_COMPILED_FIELDS) or not worth compiling yet. */
export function interpretedScanner(template: Template): ScanRecord {
  const lengths = template.fields.map((f) => f.length);
  return (b, o, end, s, n) => {
    let p = o;
    for (let i = 0; i < lengths.length; i++) {
      let len = lengths[i] as number;
      if (len === VARIABLE_LENGTH) {
        if (p >= end) return -1;
        len = b[p++] as number;
        if (len === 255) {
          if (p + 2 > end) return -1;
          len = ((b[p] as number) << 8) | (b[p + 1] as number);
          p += 2;
        }
      }
      if (p + len > end) return -1;
      s[i] = p;
      n[i] = len;
      p += len;
    }
    return p;
  };
}

/**
 * Templates with more fields than this are interpreted, not compiled: compiling costs time linear in
 * the field count (about 25 ms per 1,000 fields), which an exporter sending huge templates could
 * otherwise turn into CPU exhaustion. Real templates have tens of fields.
 */
export const MAX_COMPILED_FIELDS = 256;

const layouts = new WeakMap<Template, RecordLayout>();

/** The record lengths of a template, without compiling anything. */
export function layoutShape(template: Template): Omit<RecordLayout, 'scanRecord'> {
  let minLength = 0;
  let varlen = false;
  for (const f of template.fields) {
    if (f.length === VARIABLE_LENGTH) {
      minLength += 1;
      varlen = true;
    } else minLength += f.length;
  }
  return { fieldCount: template.fields.length, minLength, fixedLength: varlen ? undefined : minLength };
}

export function recordLayout(template: Template): RecordLayout {
  let layout = layouts.get(template);
  if (layout === undefined) {
    layout = Object.freeze({
      ...layoutShape(template),
      scanRecord: template.fields.length > MAX_COMPILED_FIELDS ? interpretedScanner(template) : compileScanner(template, segmentsOf(template)),
    });
    layouts.set(template, layout);
  }
  return layout;
}
