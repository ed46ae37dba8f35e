// Rows in ClickHouse's RowBinary format, the insert format that costs least on both sides: no escaping,
// no parsing of numbers, about half the bytes of JSONEachRow. Each row is its columns in order: DateTime
// as UInt32 seconds, UIntN little-endian, String as a LEB128 length and UTF-8 bytes. Values outside a
// column's range are clamped (ClickHouse would wrap them silently).
//
// This is the exporter's hot loop: a writer compiled once from CLICKHOUSE_COLUMNS writes each row from
// the scanned record, the values toFlowRow gives (row-binary.test.ts checks the bytes against a plain
// encoding of toFlowRow's row on random records), without the row: numbers from the scanner's
// offsets, strings' bytes copied as they are when ASCII (anything else through the decoded string, so
// the bytes are always the row's), counters beyond 2^53 read back from extras.
import { compileFunction } from '../../lib/ipfix/codegen.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { FIELD, type ScannedRecord, scannedExtras, utf8 } from '../../schemas/flow-record-scanner.js';
import type { Column } from '../row/columns.js';
import { COUNTER_ELEMENTS, ROW_ADDRESSES, ROW_SECONDS, rowAddressField } from '../row/flow-row.js';

const TWO_32 = 4294967296;

function uint(b: Buffer, p: number, v: number, bytes: number): number {
  const max = bytes === 4 ? TWO_32 - 1 : bytes === 2 ? 0xffff : 0xff;
  const x = v > 0 ? (v < max ? Math.floor(v) : max) : 0;
  b[p++] = x & 0xff;
  if (bytes > 1) b[p++] = (x >>> 8) & 0xff;
  if (bytes > 2) {
    b[p++] = (x >>> 16) & 0xff;
    b[p++] = (x >>> 24) & 0xff;
  }
  return p;
}

function uint64(b: Buffer, p: number, v: number): number {
  const x = v > 0 ? Math.floor(v) : 0;
  const lo = x >>> 0;
  const hi = (x / TWO_32) >>> 0;
  b[p++] = lo & 0xff;
  b[p++] = (lo >>> 8) & 0xff;
  b[p++] = (lo >>> 16) & 0xff;
  b[p++] = lo >>> 24;
  b[p++] = hi & 0xff;
  b[p++] = (hi >>> 8) & 0xff;
  b[p++] = (hi >>> 16) & 0xff;
  b[p++] = hi >>> 24;
  return p;
}

/** A counter whose typed field is null: its value beyond 2^53 kept in extras (as toFlowRow reads it), else 0. */
function counterFromExtras(b: Buffer, p: number, r: ScannedRecord, pen: number, id: number): number {
  for (const x of scannedExtras(r)) {
    if (x.pen === pen && x.id === id && x.value.length > 0 && x.value.length <= 8) {
      let n = 0n;
      for (const byte of x.value) n = (n << 8n) | BigInt(byte);
      b.writeBigUInt64LE(n, p);
      return p + 8;
    }
  }
  return uint64(b, p, 0);
}

function putText(b: Buffer, p: number, s: string): number {
  let len = Buffer.byteLength(s, 'utf8');
  while (len >= 0x80) {
    b[p++] = (len & 0x7f) | 0x80;
    len >>>= 7;
  }
  b[p++] = len;
  return p + b.write(s, p, 'utf8');
}

/** A string field: its bytes as they are when ASCII, else through its text; "" when null. */
function putString(b: Buffer, p: number, s: Buffer, start: number, length: number): number {
  if (start < 0) {
    b[p] = 0;
    return p + 1;
  }
  if (length < 0x80) {
    const at = p;
    b[p++] = length;
    for (let k = start, end = start + length; k < end; k++) {
      const c = s[k]!;
      if (c >= 0x80) return putText(b, at, utf8(s, start, end));
      b[p++] = c;
    }
    return p;
  }
  return putText(b, p, utf8(s, start, start + length));
}

/** The address as toFlowRow gives it. */
function putAddress(b: Buffer, p: number, r: ScannedRecord, v4: number, v6: number, zeroIsUnset: boolean): number {
  const field = rowAddressField(r, v4, v6, zeroIsUnset);
  if (field < 0) {
    b[p] = 0;
    return p + 1;
  }
  return putText(b, p, field === v4 ? formatIpv4(r.buf, r.start[v4]!) : formatIpv6(r.buf, r.start[v6]!));
}

const helpers = { uint, uint64, counterFromExtras, putText, putString, putAddress };

type Write = (r: ScannedRecord, b: Buffer, p: number, clusterUuid: string, batchId: string | undefined) => number;

function columnCode(c: Column): string {
  const bytes = { DateTime: 4, UInt8: 1, UInt16: 2 } as const;
  if (c.name === 'clusterUUID') return 'p = putText(b, p, clusterUuid);';
  const address = ROW_ADDRESSES[c.name];
  if (address !== undefined) return `p = putAddress(b, p, r, ${FIELD[address[0]]!}, ${FIELD[address[1]]!}, ${address[2]});`;
  const ms = ROW_SECONDS[c.name];
  if (ms !== undefined) return `x = r.num[${FIELD[ms]!}]; p = uint(b, p, x === x ? Math.floor(x / 1000) : 0, 4);`;
  const i = FIELD[c.name];
  if (i === undefined) throw new Error(`the ClickHouse column ${c.name} has no FlowRecord field`);
  if (c.type === 'String') return `p = putString(b, p, r.buf, r.start[${i}], r.length[${i}]);`;
  if (c.type !== 'UInt64') return `p = uint(b, p, r.num0(${i}), ${bytes[c.type]});`;
  const ie = COUNTER_ELEMENTS.get(c.name);
  return `x = r.num[${i}]; p = x === x ? uint64(b, p, x) : ${ie === undefined ? 'uint64(b, p, 0)' : `counterFromExtras(b, p, r, ${ie.pen}, ${ie.id})`};`;
}

function compileWriter(columns: readonly Column[]): Write {
  const lines = ['let x = 0;', ...columns.map(columnCode), 'if (batchId !== undefined) p = putText(b, p, batchId);', 'return p;'];
  return compileFunction<Write>('writeClickHouseRow', ['r', 'b', 'p', 'clusterUuid', 'batchId'], lines.join('\n'), helpers);
}

export class RowBinaryWriter {
  #buf: Buffer;
  #pos = 0;
  readonly #write: Write;
  readonly #fixedBytes: number;

  constructor(columns: readonly Column[], initialBytes = 1 << 20) {
    this.#write = compileWriter(columns);
    // Every column at most 48 bytes besides a string's bytes (3 a byte: U+FFFD for one that is not UTF-8).
    this.#fixedBytes = 48 * columns.length;
    this.#buf = Buffer.allocUnsafe(initialBytes);
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  /** The row of the record scanned last; `batchId`, when given, is one more String column after them (schema.ts BATCH_COLUMN). */
  write(r: ScannedRecord, clusterUuid: string, batchId?: string): void {
    this.#room(this.#fixedBytes + 3 * (r.buf.length + clusterUuid.length + (batchId?.length ?? 0)));
    this.#pos = this.#write(r, this.#buf, this.#pos, clusterUuid, batchId);
  }

  /** The rows written since the last take, as a copy; the writer starts again empty. */
  take(): Buffer {
    const out = Buffer.from(this.#buf.subarray(0, this.#pos));
    this.#pos = 0;
    return out;
  }
}
