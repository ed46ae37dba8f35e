// Interned strings: the flow store keeps every string of a flow (Pod, Node, namespace, policy, rule and
// Service port names, tcpState, Egress names, labels) and every address and UUID a flow shares with
// others (Service IPs, SNAT addresses, Pod UIDs) as an Int32 id into one pool, so that the thousands of
// flows of one Pod hold its name once. Addresses and UUIDs are kept as latin1 strings of their bytes.
// Ids are reference-counted: an id nobody holds is freed and reused, so the pool holds only what live
// flows use and cannot grow without bound. Id 0 is the empty string, never freed.
import { FlowaggError } from '../../lib/errors.js';
import { doubled } from '../../lib/typed-arrays.js';
import { PROCESSOR_STATE_CORRUPT } from '../errors.js';

export const EMPTY_ID = 0;

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

  /** Whether id's text is the UTF-8 in b[start, start + length): a record's string compared without decoding it. */
  isUtf8(id: number, b: Uint8Array, start: number, length: number): boolean {
    const encoding = this.avroString(id);
    let at = 0;
    while (encoding[at]! >= 0x80) at++;
    at++; // past the length's varint
    if (encoding.length - at !== length) return false;
    for (let i = 0; i < length; i++) if (encoding[at + i] !== b[start + i]) return false;
    return true;
  }

  /** The Avro `bytes` encoding of id's bytes (an address or UUID kept as latin1). */
  avroBytes(id: number): Buffer {
    return (this.avroLatin1[id] ??= avroEncoding(Buffer.from(this.strings[id]!, 'latin1')));
  }
}
