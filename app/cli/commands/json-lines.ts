// `flowagg decode`'s JSON lines, written straight into a byte buffer by a writer compiled once per
// template: keys are pre-encoded bytes, integers are written digit by digit, addresses byte for byte.
// Building a string per record and encoding it cost more than decoding the record (V8 keeps a
// concatenated line as a rope that must be flattened, then encoded); this way `flowagg decode` prints
// faster than ipfixDump. decode-format.ts's jsonLine is the reference the output is tested against.
import { putAscii, putUint32 } from '../../../lib/ascii-bytes.js';
import { compileFunction } from '../../../lib/ipfix/codegen.js';
import type { DataRecord, FieldValue, Template } from '../../../lib/ipfix/types.js';
import { repeatedIn, valueToJson } from '../../../lib/ipfix/json.js';
import { type RecordMeta, jsonLine, jsonLinePrefix } from './decode-format.js';

const CAPACITY = 1 << 20;
/** Room every piece of fixed maximum size is checked against: a key, and a number or an address. */
const PIECE = 320;

type Write = (w: JsonLinesWriter, b: Buffer, p: number, v: readonly FieldValue[]) => number;

/** Any other number as JSON spells it; integers above 2^53 arrive as bigints and become decimal strings. */
function putNumeric(b: Buffer, p: number, v: FieldValue): number {
  if (typeof v === 'number') return putAscii(b, p, Number.isFinite(v) ? String(v) : `"${v}"`);
  return typeof v === 'bigint' ? putAscii(b, p, `"${v}"`) : putAscii(b, p, JSON.stringify(valueToJson(v)));
}

function putAddress(b: Buffer, p: number, v: FieldValue): number {
  if (typeof v !== 'string') return putAscii(b, p, JSON.stringify(valueToJson(v)));
  b[p] = 34;
  p = putAscii(b, p + 1, v);
  b[p] = 34;
  return p + 1;
}

function putBoolean(b: Buffer, p: number, v: FieldValue): number {
  return putAscii(b, p, v === true ? 'true' : v === false ? 'false' : JSON.stringify(valueToJson(v)));
}

/** Values of no fixed maximum length (strings, octets, lists): their JSON text, with room made first. */
function putText(w: JsonLinesWriter, b: Buffer, p: number, text: string): number {
  if (p + text.length * 3 > CAPACITY) p = w.drain(p);
  if (text.length * 3 > CAPACITY) {
    w.sink(Buffer.from(text, 'utf8'));
    return p;
  }
  return p + b.write(text, p, 'utf8');
}

const textOf = (v: FieldValue): string => JSON.stringify(typeof v === 'string' ? v : valueToJson(v));

const helpers = { putUint32, putNumeric, putAddress, putBoolean, putText, textOf, PIECE, CAPACITY };

function compileWriter(t: Template): Write | undefined {
  if (repeatedIn(t).size > 0) return undefined;
  const keys: Record<string, Buffer> = {};
  const lines = ['let x;'];
  t.fields.forEach((f, i) => {
    const key = Buffer.from(`,${JSON.stringify(f.ie.name)}:`, 'utf8');
    if (key.length > PIECE / 2) return lines.push(`x = ${JSON.stringify(`,${JSON.stringify(f.ie.name)}:`)} + textOf(v[${i}]); p = putText(w, b, p, x);`);
    keys[`k${i}`] = key;
    lines.push(`if (p + PIECE > CAPACITY) p = w.drain(p);`, `b.set(k${i}, p); p += ${key.length};`);
    switch (f.ie.type) {
      case 'ipv4Address': case 'ipv6Address': case 'macAddress':
        lines.push(`p = putAddress(b, p, v[${i}]);`);
        break;
      case 'boolean':
        lines.push(`p = putBoolean(b, p, v[${i}]);`);
        break;
      case 'string': case 'octetArray': case 'basicList': case 'subTemplateList': case 'subTemplateMultiList':
        lines.push(`p = putText(w, b, p, textOf(v[${i}]));`);
        break;
      default:
        lines.push(`x = v[${i}];`, `p = typeof x === 'number' && x >>> 0 === x ? putUint32(b, p, x) : putNumeric(b, p, x);`);
    }
  });
  lines.push('if (p + 2 > CAPACITY) p = w.drain(p);', 'b[p] = 125; b[p + 1] = 10;', 'return p + 2;');
  return compileFunction<Write>(`jsonLineTemplate${t.id}`, ['w', 'b', 'p', 'v'], lines.join('\n'), { ...helpers, ...keys });
}

const writers = new WeakMap<Template, Write | null>();

export class JsonLinesWriter {
  readonly #b = Buffer.allocUnsafe(CAPACITY);
  #p = 0;
  #meta: RecordMeta | undefined;
  #template: Template | undefined;
  #prefix = '';

  /** `sink` receives the bytes; it may keep them only until it returns. */
  constructor(readonly sink: (bytes: Uint8Array) => void) {}

  record(r: DataRecord, meta: RecordMeta): void {
    if (meta !== this.#meta || r.template !== this.#template) {
      this.#meta = meta;
      this.#template = r.template;
      this.#prefix = jsonLinePrefix(r.template.id, meta);
    }
    let write = writers.get(r.template);
    if (write === undefined) {
      write = compileWriter(r.template) ?? null;
      writers.set(r.template, write);
    }
    const b = this.#b;
    let p = putText(this, b, this.#p, this.#prefix);
    if (write === null) p = putText(this, b, p, `${jsonLine(r, '')}\n`);
    else p = write(this, b, p, r.values);
    this.#p = p;
  }

  /** Hands what is buffered to the sink; returns the new write position (0). */
  drain(p: number): number {
    if (p > 0) this.sink(this.#b.subarray(0, p));
    return 0;
  }

  flush(): void {
    this.#p = this.drain(this.#p);
  }
}
