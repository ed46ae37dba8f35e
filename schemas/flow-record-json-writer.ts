// flowRecordToJson's line (JSON.stringify of it, and a newline) written straight from a scanned
// FlowRecord into a byte buffer, by a writer compiled once from the schema: no object, no string per
// field, keys as 32-bit stores of constants (lib/constant-stores.ts; they are three quarters of the
// line's bytes, and copying them byte by byte had been half the writer's time), numbers digit by digit,
// addresses byte by byte, and an ASCII string's bytes copied with JSON's escapes (anything else goes
// through JSON.stringify, so the bytes are always those of the reference). For the flow log's JSON
// lines, the quick start's default: JSON.stringify per record had made them 15 times slower than the
// rest of the exporter.
// flow-record-json-writer.test.ts checks the lines against flowRecordToJson on random records.
import { type LineRoom, putAscii, putNumber } from '../lib/ascii-bytes.js';
import { STORE_OVERRUN, constantStores, viewOf } from '../lib/constant-stores.js';
import { compileFunction } from '../lib/ipfix/codegen.js';
import { formatMac, putIpv6 as putIpv6Text } from '../lib/ipfix/text.js';
import { FLOW_RECORD_FIELDS, FLOW_RECORD_SCHEMA } from './flow-record.js';
import { exporterText, extraEntry } from './flow-record-json.js';
import { FIELD, type ScannedRecord, scannedExtras, utf8 } from './flow-record-scanner.js';

const HEX = Buffer.from('0123456789abcdef');

function enumSymbols(field: string): readonly string[] {
  const f = (FLOW_RECORD_SCHEMA as { fields: { name: string; type: unknown }[] }).fields.find((x) => x.name === field)!;
  const t = (Array.isArray(f.type) ? f.type[1] : f.type) as { symbols: string[] };
  return t.symbols;
}

const TRANSPORTS = enumSymbols('transport').map((s) => (s === 'unknown' ? null : Buffer.from(`"@transport":${JSON.stringify(s)},`)));
const SECONDS = enumSymbols('flowStartSource').indexOf('seconds');

/** JSON.stringify's escape of each ASCII byte: 0 for none, else the letter after the backslash (u for \u00XX). */
const ESCAPES = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) ESCAPES[c] = 117;
for (const [c, e] of [[8, 'b'], [9, 't'], [10, 'n'], [12, 'f'], [13, 'r'], [34, '"'], [92, '\\']] as const) ESCAPES[c] = e.charCodeAt(0);

/** A string value's JSON text: ASCII escaped byte by byte as JSON.stringify does, anything else through JSON.stringify. */
function putString(b: Buffer, p: number, s: Buffer, start: number, length: number): number {
  const at = p;
  b[p++] = 34;
  for (let k = start, end = start + length; k < end; k++) {
    const c = s[k]!;
    if (c >= 0x80) return at + b.write(JSON.stringify(utf8(s, start, end)), at, 'utf8');
    const e = ESCAPES[c]!;
    if (e === 0) {
      b[p++] = c;
      continue;
    }
    b[p++] = 92;
    b[p++] = e;
    if (e === 117) {
      b[p++] = 48;
      b[p++] = 48;
      b[p++] = HEX[c >>> 4]!;
      b[p++] = HEX[c & 15]!;
    }
  }
  b[p] = 34;
  return p + 1;
}

function putQuoted(b: Buffer, p: number, text: string): number {
  b[p] = 34;
  p = putAscii(b, p + 1, text);
  b[p] = 34;
  return p + 1;
}

function putIpv4(b: Buffer, p: number, s: Buffer, at: number): number {
  b[p++] = 34;
  for (let k = 0; k < 4; k++) {
    if (k > 0) b[p++] = 46;
    p = putNumber(b, p, s[at + k]!);
  }
  b[p] = 34;
  return p + 1;
}

function putIpv6(b: Buffer, p: number, s: Buffer, at: number): number {
  b[p] = 34;
  p = putIpv6Text(b, p + 1, s, at);
  b[p] = 34;
  return p + 1;
}

const putMac = (b: Buffer, p: number, s: Buffer, at: number) => putQuoted(b, p, formatMac(s, at));

/** Lower-case hex digits of s[at, at + length), a dash before the bytes whose bit is set in `dashes`. */
function putHexDigits(b: Buffer, p: number, s: Buffer, at: number, length: number, dashes: number): number {
  b[p++] = 34;
  for (let k = 0; k < length; k++) {
    if ((dashes >>> k) & 1) b[p++] = 45;
    const c = s[at + k]!;
    b[p++] = HEX[c >>> 4]!;
    b[p++] = HEX[c & 15]!;
  }
  b[p] = 34;
  return p + 1;
}

/** uuidText's 8-4-4-4-12: dashes before bytes 4, 6, 8 and 10. */
const UUID_DASHES = (1 << 4) | (1 << 6) | (1 << 8) | (1 << 10);
const putUuid = (b: Buffer, p: number, s: Buffer, at: number) => putHexDigits(b, p, s, at, 16, UUID_DASHES);
const putHex = (b: Buffer, p: number, s: Buffer, at: number, length: number) => putHexDigits(b, p, s, at, length, 0);

const EXPORTER_ADDRESS = FIELD.exporterAddress!;
const EXPORTER_PORT = FIELD.exporterPort!;

/** `"@exporter":"address:port",` (an IPv6 address in brackets), nothing when the record has no exporter address. */
function putExporter(b: Buffer, p: number, r: ScannedRecord): number {
  const start = r.start[EXPORTER_ADDRESS]!;
  const length = r.length[EXPORTER_ADDRESS]!;
  if (start < 0 || length === 0) return p;
  p = putAscii(b, p, '"@exporter":');
  const text = exporterText(r.text(EXPORTER_ADDRESS), r.num0(EXPORTER_PORT));
  p += b.write(JSON.stringify(text), p, 'utf8');
  b[p] = 44;
  return p + 1;
}

/**
 * An element present both as a typed field and in extras (or twice in extras) is an array of its values
 * in order, as flowRecordToJson makes it: `dup` holds the JSON texts of the extras by key, and a typed
 * field whose key is there opens the array, its value first.
 */
type Dup = Map<string, string[]>;

function openDup(b: Buffer, p: number, dup: Dup, key: string): number {
  if (dup.has(key)) b[p++] = 91;
  return p;
}

function closeDup(b: Buffer, p: number, dup: Dup, key: string): number {
  const list = dup.get(key);
  if (list === undefined) return p;
  for (const text of list) {
    b[p++] = 44;
    p += b.write(text, p, 'utf8');
  }
  b[p] = 93;
  dup.delete(key);
  return p + 1;
}

/** The extras no typed field took, in order of first appearance. */
function putExtras(b: Buffer, p: number, dup: Dup): number {
  for (const [key, list] of dup) {
    p += b.write(`,${JSON.stringify(key)}:`, p, 'utf8');
    p += b.write(list.length === 1 ? list[0]! : `[${list.join(',')}]`, p, 'utf8');
  }
  return p;
}

function extrasByKey(r: ScannedRecord): { dup: Dup | undefined; bytes: number } {
  if (!(r.num[EXTRAS]! > 0)) return { dup: undefined, bytes: 0 };
  const dup: Dup = new Map();
  let bytes = 0;
  for (const x of scannedExtras(r)) {
    const [key, value] = extraEntry(x.pen, x.id, x.value);
    const text = JSON.stringify(value);
    const list = dup.get(key);
    if (list === undefined) dup.set(key, [text]);
    else list.push(text);
    bytes += 3 * (key.length + text.length + 8);
  }
  return { dup, bytes };
}

const EXTRAS = FIELD.extras!;

type Write = (r: ScannedRecord, b: Buffer, p: number, dup: Dup | undefined) => number;

function compileWriter(): { write: Write; fixedBytes: number } {
  let fixedBytes = 256;
  const constant = (text: string) => {
    const bytes = Buffer.from(text);
    fixedBytes += bytes.length + STORE_OVERRUN;
    return constantStores(bytes);
  };
  const key = (text: string) => {
    fixedBytes += 64;
    return `${constant(`,${JSON.stringify(text)}:`)} if (dup !== undefined) p = openDup(b, p, dup, ${JSON.stringify(text)});`;
  };
  const close = (text: string) => `if (dup !== undefined) p = closeDup(b, p, dup, ${JSON.stringify(text)});`;
  const num = (name: string) => `r.num[${FIELD[name]!}]`;
  const lines = [
    'const st = r.start, ln = r.length, n = r.num, s = r.buf;',
    'const view = viewOf(b);',
    'let x = 0;',
    'b[p++] = 123;',
    'p = putExporter(b, p, r);',
    `const t = TRANSPORTS[${num('transport')}]; if (t) { b.set(t, p); p += t.length; }`,
    `${constant('"@observationDomainId":')} p = putNumber(b, p, r.num0(${FIELD.observationDomainId!}));`,
    `${constant(',"@templateId":')} p = putNumber(b, p, r.num0(${FIELD.templateId!}));`,
    `${constant(',"@exportTime":')} p = putNumber(b, p, r.num0(${FIELD.exportTime!}) / 1000);`,
    `${constant(',"@sequenceNumber":')} p = putNumber(b, p, r.num0(${FIELD.sequenceNumber!}));`,
    `x = r.num0(${FIELD.receiveTime!}); if (x !== 0) { ${constant(',"@receiveTime":')} p = putNumber(b, p, x); }`,
  ];
  FLOW_RECORD_FIELDS.forEach((f, i) => {
    if (f.kind === 'time') {
      const seconds = `${f.which}Seconds`;
      lines.push(
        `x = n[${i}]; if (x === x) {`,
        `  if (n[${FIELD[`${f.which}Source`]!}] === SECONDS) { ${key(seconds)} p = putNumber(b, p, Math.floor(x / 1000)); ${close(seconds)} }`,
        `  else { ${key(f.name)} p = putNumber(b, p, x); ${close(f.name)} }`,
        '}',
      );
      return;
    }
    if (f.kind !== 'element') return;
    if (f.encoding === 'int' || f.encoding === 'long') {
      lines.push(`x = n[${i}]; if (x === x) { ${key(f.name)} p = putNumber(b, p, x); ${close(f.name)} }`);
      return;
    }
    const value =
      f.encoding === 'string' ? `putString(b, p, s, st[${i}], ln[${i}])`
      : f.ie.type === 'ipv4Address' ? `putIpv4(b, p, s, st[${i}])`
      : f.ie.type === 'ipv6Address' ? `putIpv6(b, p, s, st[${i}])`
      : f.ie.type === 'macAddress' ? `putMac(b, p, s, st[${i}])`
      : f.size === 16 ? `putUuid(b, p, s, st[${i}])`
      : `putHex(b, p, s, st[${i}], ln[${i}])`;
    lines.push(`if (st[${i}] >= 0) { ${key(f.name)} p = ${value}; ${close(f.name)} }`);
  });
  lines.push('if (dup !== undefined) p = putExtras(b, p, dup);', 'b[p] = 125; b[p + 1] = 10;', 'return p + 2;');
  const helpers = { putNumber, putString, putIpv4, putIpv6, putMac, putUuid, putHex, putExporter, openDup, closeDup, putExtras, TRANSPORTS, SECONDS, viewOf };
  return { write: compileFunction<Write>('writeFlowRecordJson', ['r', 'b', 'p', 'dup'], lines.join('\n'), helpers), fixedBytes };
}

const compiled = compileWriter();

/**
 * Writes the JSON line of the record scanned last (JSON.stringify(flowRecordToJson(record)) and a
 * newline) into `out`; returns where it ends.
 */
export function writeFlowRecordJson(r: ScannedRecord, out: LineRoom): number {
  const { dup, bytes } = extrasByKey(r);
  // A string byte becomes at most 6 (a control character's \u00XX); every other value has a bound of its own.
  const b = out.room(compiled.fixedBytes + 6 * (r.end - r.bodyStart) + bytes);
  return compiled.write(r, b, out.length, dup);
}
