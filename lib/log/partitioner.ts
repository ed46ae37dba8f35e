// Kafka's default partitioner for keyed records, bit for bit: murmur2 (Utils.murmur2 in the Java client,
// seed 0x9747b28c), made positive with `& 0x7fffffff` (Utils.toPositive), modulo the partition count.
// Both backends use it, so a key lands in the same partition whichever log holds it.

/** murmur2 of data[start, end). */
export function murmur2(data: Uint8Array, start = 0, end = data.length): number {
  const length = end - start;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (0x9747b28c ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = start + (i << 2);
    let k = (data[i4]! & 0xff) | ((data[i4 + 1]! & 0xff) << 8) | ((data[i4 + 2]! & 0xff) << 16) | ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const tail = start + (length & ~3);
  const rest = length % 4;
  if (rest >= 3) h ^= (data[tail + 2]! & 0xff) << 16;
  if (rest >= 2) h ^= (data[tail + 1]! & 0xff) << 8;
  if (rest >= 1) {
    h ^= data[tail]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: Uint8Array, partitions: number, start = 0, end = key.length): number {
  return (murmur2(key, start, end) & 0x7fffffff) % partitions;
}
