// Interned strings: the flow store keeps every string of a flow (Pod, Node, namespace, policy, rule and
// Service port names, tcpState, Egress names, labels) and every address and UUID a flow shares with
// others (Service IPs, SNAT addresses, Pod UIDs) as an Int32 id into one pool, so that the thousands of
// flows of one Pod hold its name once. Addresses and UUIDs are kept as latin1 strings of their bytes.
// Ids are reference-counted: an id nobody holds is freed and reused, so the pool holds only what live
// flows use and cannot grow without bound. Id 0 is the empty string, never freed.
// A record's strings are interned from the bytes they were written in (acquireBytes): a cache keyed by
// their hash names the id that had them last, checked against its text, so that a flow's first record
// makes no string for a name the pool already holds. Decoding each (and hashing the string for the Map)
// had been a tenth of the aggregation's CPU at 100,000 flows.
import { FlowaggError } from '../../lib/errors.js';
import { doubled } from '../../lib/typed-arrays.js';
import { latin1, utf8 } from '../../schemas/flow-record-scanner.js';
import { PROCESSOR_STATE_CORRUPT } from '../errors.js';
import { hashBytes, isLatin1Of } from './key-index.js';

export const EMPTY_ID = 0;

/** How a value's bytes are its text: UTF-8 for strings, one character per byte for addresses and UUIDs. */
export type TextEncoding = 'utf8' | 'latin1';

/** Hash seeds, so that the same bytes in the two encodings (two different strings) take different cache entries. */
const SEED: Record<TextEncoding, number> = { utf8: 0x811c9dc5, latin1: 0x050c5d1f };
const INITIAL_CACHE = 1 << 12;

/** Avro's encoding of a string or bytes value: the zig-zag varint of its length, then the bytes. */
function avroEncoding(bytes: Buffer): Buffer {
  const head: number[] = [];
  let n = bytes.length * 2;
  while (n > 0x7f) {
    head.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  head.push(n);
  return Buffer.concat([Buffer.from(head), bytes]);
}

export class StringPool {
  private readonly ids = new Map<string, number>();
  private strings: string[] = [''];
  private refs = new Int32Array(1024);
  private readonly free: number[] = [];
  /** The Avro encodings of each string, as `string` (UTF-8) and as `bytes` (latin1), made when first written. */
  private avro: (Buffer | undefined)[] = [];
  private avroLatin1: (Buffer | undefined)[] = [];
  /** Id by hash of its bytes, the one that had them last (maybe freed or reused since: checked before use). */
  private byBytes: Int32Array;

  constructor(cacheEntries = INITIAL_CACHE) {
    this.byBytes = new Int32Array(cacheEntries);
  }

  /** Strings held (besides ""). */
  get size(): number {
    return this.ids.size;
  }

  /** The id of `s`, counting one more holder. */
  acquire(s: string): number {
    if (s.length === 0) return EMPTY_ID;
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.free.pop() ?? this.strings.length;
      if (id >= this.refs.length) this.refs = doubled(this.refs);
      this.strings[id] = s;
      this.avro[id] = this.avroLatin1[id] = undefined;
      this.ids.set(s, id);
    }
    this.refs[id]!++;
    return id;
  }

  /** The id of the text whose bytes in `encoding` are b[start, start + length), counting one more holder. */
  acquireBytes(encoding: TextEncoding, b: Buffer, start: number, length: number): number {
    if (length === 0) return EMPTY_ID;
    const end = start + length;
    const hash = hashBytes(b, start, end, SEED[encoding]);
    const cached = this.byBytes[hash & (this.byBytes.length - 1)]!;
    if (cached !== EMPTY_ID && this.refs[cached]! > 0 && this.holds(cached, encoding, b, start, length)) {
      this.refs[cached]!++;
      return cached;
    }
    const id = this.acquire(encoding === 'utf8' ? utf8(b, start, end) : latin1(b, start, end));
    // At least twice as many entries as strings, so that few share one; the larger table starts empty.
    if (this.strings.length * 2 > this.byBytes.length) this.byBytes = new Int32Array(this.byBytes.length * 4);
    this.byBytes[hash & (this.byBytes.length - 1)] = id;
    return id;
  }

  /** One holder fewer; the string is forgotten when nobody holds it. */
  release(id: number): void {
    if (id === EMPTY_ID) return;
    const left = --this.refs[id]!;
    if (left > 0) return;
    if (left < 0) throw new FlowaggError(PROCESSOR_STATE_CORRUPT, `string pool: id ${id} released more often than acquired`);
    this.ids.delete(this.strings[id]!);
    this.strings[id] = '';
    this.avro[id] = this.avroLatin1[id] = undefined;
    this.free.push(id);
  }

  text(id: number): string {
    return this.strings[id]!;
  }

  /** The Avro `string` encoding of id's text: zig-zag length, UTF-8. */
  avroString(id: number): Buffer {
    return (this.avro[id] ??= avroEncoding(Buffer.from(this.strings[id]!, 'utf8')));
  }

  /** Whether id's text is b[start, start + length) in `encoding`: a record's value compared without decoding it. */
  holds(id: number, encoding: TextEncoding, b: Uint8Array, start: number, length: number): boolean {
    if (encoding === 'latin1') return isLatin1Of(this.strings[id]!, b, start, length);
    const bytes = this.avroString(id);
    let at = 0;
    while (bytes[at]! >= 0x80) at++;
    at++; // past the length's varint
    if (bytes.length - at !== length) return false;
    for (let i = 0; i < length; i++) if (bytes[at + i] !== b[start + i]) return false;
    return true;
  }

  /** The Avro `bytes` encoding of id's bytes (an address or UUID kept as latin1). */
  avroBytes(id: number): Buffer {
    return (this.avroLatin1[id] ??= avroEncoding(Buffer.from(this.strings[id]!, 'latin1')));
  }
}
