// Decoded IPFIX values as JSON, the way `flowagg decode` prints them (and `flowagg pipeline`, through
// schemas/flow-record-json.ts): integers as numbers, as decimal strings above 2^53 (dateTimeMicro/
// Nanoseconds are nanoseconds since the epoch, so always strings); addresses as text; octetArray as
// lower-case hex; floats that JSON cannot hold as "NaN"/"Infinity"/"-Infinity"; RFC 6313 lists as nested
// objects; an element repeated in a template as the array of its values in order.
import { toHex } from './text.js';
import type { DataRecord, FieldValue, Template } from './types.js';

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

const SEMANTICS = ['noneOf', 'exactlyOneOf', 'oneOrMoreOf', 'allOf', 'ordered'];
export const semanticName = (s: number): string => SEMANTICS[s] ?? (s === 255 ? 'undefined' : String(s));

export function valueToJson(v: FieldValue): Json {
  switch (typeof v) {
    case 'number': return Number.isFinite(v) ? v : String(v);
    case 'bigint': return v.toString();
    case 'string': case 'boolean': return v;
    default:
      if (v instanceof Uint8Array) return toHex(v);
      if (v.kind === 'basicList') return { semantic: semanticName(v.semantic), element: v.ie.name, values: v.values.map(valueToJson) };
      if (v.kind === 'subTemplateList') {
        return { semantic: semanticName(v.semantic), templateId: v.templateId, records: v.records.map(fieldsToJson), ...(v.undecoded ? { undecoded: toHex(v.undecoded) } : {}) };
      }
      return {
        semantic: semanticName(v.semantic),
        entries: v.entries.map((e) => ({ templateId: e.templateId, records: e.records.map(fieldsToJson), ...(e.undecoded ? { undecoded: toHex(e.undecoded) } : {}) })),
      };
  }
}

const repeatedNames = new WeakMap<Template, ReadonlySet<string>>();

/** Names that occur more than once in the template: their key holds the array of values. */
export function repeatedIn(t: Template): ReadonlySet<string> {
  let names = repeatedNames.get(t);
  if (names === undefined) {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const f of t.fields) (seen.has(f.ie.name) ? twice : seen).add(f.ie.name);
    names = twice;
    repeatedNames.set(t, names);
  }
  return names;
}

export function fieldsToJson(r: DataRecord): { [k: string]: Json } {
  const out: { [k: string]: Json } = {};
  const repeated = repeatedIn(r.template);
  r.template.fields.forEach((f, i) => {
    const value = valueToJson(r.values[i] as FieldValue);
    if (repeated.has(f.ie.name)) ((out[f.ie.name] ??= []) as Json[]).push(value);
    else out[f.ie.name] = value;
  });
  return out;
}
