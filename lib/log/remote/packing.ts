// Records across a thread boundary in one ArrayBuffer that is moved, not copied: structured clone would
// copy every key, value and header on its own and hand them over as Uint8Arrays, where the log's types
// promise Buffers. Here the bytes are copied once into one buffer, which is transferred, and the other
// side takes Buffer views of it.
import type { Headers } from '../types.js';

interface Bytes {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Headers;
}

/** A record without its bytes: their lengths (-1 for null), in the order they follow in the buffer. */
export type Packed<R extends Bytes> = Omit<R, 'key' | 'value' | 'headers'> & { readonly k: number; readonly v: number; readonly h?: readonly (readonly [string, number])[] };

export interface PackedRecords<R extends Bytes> {
  readonly records: readonly Packed<R>[];
  readonly bytes: ArrayBuffer;
}

const lengthOf = (b: Buffer | null) => (b === null ? -1 : b.length);

export function pack<R extends Bytes>(records: readonly R[]): PackedRecords<R> {
  let size = 0;
  for (const r of records) {
    size += (r.key?.length ?? 0) + (r.value?.length ?? 0);
    for (const name in r.headers) size += r.headers[name]!.length;
  }
  const bytes = new ArrayBuffer(size);
  const into = new Uint8Array(bytes);
  let at = 0;
  const put = (b: Buffer | null) => {
    if (b === null) return;
    into.set(b, at);
    at += b.length;
  };
  const packed = records.map((r) => {
    const { key, value, headers, ...rest } = r;
    put(key);
    put(value);
    const h = headers === undefined ? undefined : Object.entries(headers).map(([name, b]) => (put(b), [name, b.length] as const));
    return { ...rest, k: lengthOf(key), v: lengthOf(value), ...(h !== undefined && h.length > 0 && { h }) };
  });
  return { records: packed, bytes };
}

/** The records with Buffer views of the transferred bytes; `headers` is always set when `withHeaders`. */
export function unpack<R extends Bytes>(packed: PackedRecords<R>, withHeaders: boolean): R[] {
  let at = 0;
  const take = (n: number): Buffer | null => {
    if (n < 0) return null;
    const b = Buffer.from(packed.bytes, at, n);
    at += n;
    return b;
  };
  return packed.records.map(({ k, v, h, ...rest }) => {
    const key = take(k);
    const value = take(v);
    const headers = h === undefined ? (withHeaders ? {} : undefined) : Object.fromEntries(h.map(([name, n]) => [name, take(n)!]));
    return { ...rest, key, value, ...(headers !== undefined && { headers }) } as unknown as R;
  });
}
