// Test support: reads the text that ipfixDump (libfixbuf-tools 2.4.1) prints, and renders our decoded
// values the way ipfixDump prints them, so that tests compare every field of every data record with
// an independent decoder. Production code never imports this file.
//
// ipfixDump's quirks, reproduced here on purpose rather than loosened:
// - Its warnings go to stderr, which the expected files captured interleaved with stdout, sometimes in
//   the middle of a line ("\n** (ipfixDump:123): WARNING **: ...\n"). Removing exactly those inserts
//   restores stdout.
// - octetArray values (and elements it does not know, "_alienInformationElement") of a fixed length up
//   to 8 bytes are printed as the little-endian integer of the raw bytes; longer or variable-length
//   ones as "len: N"; paddingOctets always as "len: N".
// - dateTimeMicroseconds/Nanoseconds are printed with the fraction dropped (".000000"), so only the
//   seconds can be compared through it; the fraction is tested elsewhere.
// - IPv6 addresses: its own compression (zero groups before the first non-zero group after the start
//   collapse to "::"/":", later groups are printed with 4 digits: "fe80::00ff:fe00:0401").
// - Strings: "(len: N) text"; booleans as their wire value; MAC addresses in lower-case hex.
import { parseIpv6Into } from '../text.js';
import { type FieldValue, type TemplateField, VARIABLE_LENGTH } from '../types.js';

export interface DumpField {
  readonly pen: number;
  readonly id: number;
  readonly scope: boolean;
  readonly name: string;
  /** The printed value (empty for lists, whose content is in `list`). */
  readonly value: string;
  readonly list?: DumpList;
}

export type DumpList =
  | { readonly kind: 'subTemplateMultiList'; readonly semantic: number; readonly entries: { readonly templateId: number; readonly records: DumpRecord[] }[] }
  | { readonly kind: 'subTemplateList'; readonly semantic: number; readonly templateId: number; readonly records: DumpRecord[] }
  | { readonly kind: 'basicList'; readonly semantic: number; readonly id: number; readonly values: string[] };

export interface DumpRecord {
  readonly templateId: number;
  readonly fields: DumpField[];
}

export interface Dump {
  readonly records: DumpRecord[];
  readonly stats: { messages: number; dataRecords: number; templateRecords: number };
}

const WARNING = /\n\*\* \(ipfixDump:\d+\): WARNING \*\*: [^\n]*\n/g;
// No space between "(pen/id)" and the name when the pair fills its column: "(56506/111)ingressNetworkPolicyNamespace".
const FIELD = /^\((?:(\d+)\/)?(\d+)\)( \(S\))?\s*(\S+) : ?(.*)$/;

export function parseIpfixDump(text: string): Dump {
  const lines = `\n${text}`.replace(WARNING, '').split('\n').map((l) => l.trim());
  let i = 0;
  const peek = () => lines[i] ?? '';
  const expect = (re: RegExp): RegExpExecArray => {
    const m = re.exec(lines[i] ?? '');
    if (m === null) throw new Error(`ipfixDump text line ${i}: expected ${re}, got ${JSON.stringify(lines[i])}`);
    i++;
    return m;
  };

  const parseRecord = (): DumpRecord => {
    expect(/^--- data record \d+ ---$/);
    expect(/^header:$/);
    const [, count, tid] = expect(/^count: (\d+)\s+tid:\s+(\d+) /);
    expect(/^fields:$/);
    const fields: DumpField[] = [];
    for (let f = 0; f < Number(count); f++) {
      const [, pen, id, scope, name, value] = expect(FIELD);
      const list = parseList();
      fields.push({ pen: Number(pen ?? 0), id: Number(id), scope: scope !== undefined, name: name ?? '', value: value ?? '', ...(list ? { list } : {}) });
    }
    return { templateId: Number(tid), fields };
  };

  const parseList = (): DumpList | undefined => {
    const head = peek();
    if (head === '+++ subTemplateMultiList +++') {
      i++;
      const [, n, sem] = expect(/^count: (\d+)\s+semantic: (\d+)/);
      const entries = [];
      for (let e = 0; e < Number(n); e++) {
        expect(/^\+\+\+ subTemplateMultiListEntry \d+ \+\+\+$/);
        const [, m, tid] = expect(/^count: (\d+)\s+tid:\s+(\d+)/);
        const records = Array.from({ length: Number(m) }, parseRecord);
        entries.push({ templateId: Number(tid), records });
      }
      return { kind: 'subTemplateMultiList', semantic: Number(sem), entries };
    }
    if (head === '+++ subTemplateList +++') {
      i++;
      const [, n, sem, tid] = expect(/^count: (\d+)\s+semantic: (\d+)\S*\s+tid:\s+(\d+)/);
      return { kind: 'subTemplateList', semantic: Number(sem), templateId: Number(tid), records: Array.from({ length: Number(n) }, parseRecord) };
    }
    if (head === '+++ basicList +++') {
      i++;
      const [, n, sem, id] = expect(/^count: (\d+)\s+semantic: (\d+)\S*\s+ie: \((?:\d+\/)?(\d+)\)/);
      const values = Array.from({ length: Number(n) }, () => expect(/^\d+\s+: (.*)$/)[1] ?? '');
      return { kind: 'basicList', semantic: Number(sem), id: Number(id), values };
    }
    return undefined;
  };

  const records: DumpRecord[] = [];
  let stats = { messages: 0, dataRecords: 0, templateRecords: 0 };
  while (i < lines.length) {
    const line = peek();
    if (line.startsWith('--- data record')) {
      records.push(parseRecord());
      continue;
    }
    const s = /^\*\*\* File Stats: (\d+) Messages, (\d+) Data Records, (\d+) Template Records \*\*\*$/.exec(line);
    if (s) stats = { messages: Number(s[1]), dataRecords: Number(s[2]), templateRecords: Number(s[3]) };
    i++;
  }
  return { records, stats };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function utcSeconds(sec: number): string {
  const d = new Date(sec * 1000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

function ipv6AsIpfixDump(text: string): string {
  const b = new Uint8Array(16);
  if (!parseIpv6Into(text, b, 0)) throw new Error(`not an IPv6 address: ${text}`);
  let s = '';
  let colonStart = false;
  let colonEnd = false;
  for (let g = 0; g < 8; g++) {
    const v = ((b[2 * g] as number) << 8) | (b[2 * g + 1] as number);
    if (v !== 0 || colonEnd) {
      s += v.toString(16).padStart(4, '0') + (g < 7 ? ':' : '');
      if (colonStart) colonEnd = true;
    } else if (!colonStart) {
      s += g === 0 ? '::' : ':';
      colonStart = true;
    }
  }
  return s;
}

function littleEndian(raw: Uint8Array): string {
  let v = 0n;
  for (let k = raw.length - 1; k >= 0; k--) v = (v << 8n) | BigInt(raw[k] as number);
  return v.toString();
}

/**
 * What ipfixDump prints for one field, given our decoded value and the field's raw content bytes.
 * `alien` says that ipfixDump did not know the element (it then prints the raw bytes, whatever our type).
 */
export function ipfixDumpValue(field: TemplateField, value: FieldValue, raw: Uint8Array, alien: boolean): string {
  const { ie } = field;
  if (ie.pen === 0 && ie.id === 210) return `len: ${raw.length}`;
  if (alien || ie.type === 'octetArray') return field.length !== VARIABLE_LENGTH && field.length <= 8 ? littleEndian(raw) : `len: ${raw.length}`;
  switch (ie.type) {
    // The reader trims lines: an empty string's "(len: 0) " is "(len: 0)".
    case 'string': return `(len: ${raw.length}) ${new TextDecoder().decode(raw)}`.trimEnd();
    case 'boolean': return value === true ? '1' : '2';
    case 'ipv6Address': return ipv6AsIpfixDump(value as string);
    case 'dateTimeSeconds': return utcSeconds(value as number);
    case 'dateTimeMilliseconds': return `${utcSeconds(Math.floor((value as number) / 1000))}.${pad((value as number) % 1000, 3)}`;
    case 'dateTimeMicroseconds': return `${utcSeconds(Number((value as bigint) / 1_000_000_000n))}.000000`;
    case 'dateTimeNanoseconds': return `${utcSeconds(Number((value as bigint) / 1_000_000_000n))}.000000000`;
    case 'basicList': case 'subTemplateList': case 'subTemplateMultiList': return '';
    default: return String(value);
  }
}
