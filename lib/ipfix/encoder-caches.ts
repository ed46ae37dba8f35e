// Caches for the record encoder's hot path. Exporters write the same few hundred Pod, namespace and
// Node names and the same addresses over and over, so the encoder keeps what it computed for a value
// (its UTF-8 bytes, its 32-bit address) and writes it back with 4-byte DataView stores.
//
// A cache pays off when the caller passes the same string objects again (names held in a Pod cache,
// strings returned by our decoder, which caches them too, the benchmark's rows): a hit then costs a
// lookup of about 20 ns against about 55 ns to write a 20-character name byte by byte. For strings
// built anew for every record, the lookup must hash the new string first and costs about as much as
// the byte loop it replaces.
//
// Both caches are bounded the same way: once full, a miss only computes (no insertion churn when the
// traffic has more distinct values than the cache), and after MISSES_BEFORE_RESET such misses the
// cache starts over so that it follows the traffic.
import { ViewCache } from '../view-cache.js';
import { parseIpv4Into } from './text.js';

const MISSES_BEFORE_RESET = 65536;

/**
 * A DataView over the buffer being written: cached strings go out as 32-bit words through it (about
 * half the cost of a byte loop for names of 20–30 bytes), and so do fixed integer fields (as fast as
 * byte stores, and shorter generated code). The message encoder writes every message into one buffer,
 * so the view is made once (and keeps that one buffer alive).
 */
const views = new ViewCache();

export function viewOf(b: Uint8Array): DataView {
  return views.of(b);
}

/**
 * A string's variable-length encoding (1-byte length prefix, then UTF-8) as big-endian 32-bit words:
 * [length in bytes L, word of bytes 0–3, word of bytes 4–7, …, word of bytes L-4..L-1]. The last word
 * overlaps the full words before it (repeats the last one when L is a multiple of 4), so that writing
 * the words puts exactly L bytes, with no byte loop for the tail and nothing written past the value.
 */
export type EncodedString = Int32Array;

const STRINGS_MAX = 4096;
/**
 * Longer strings are rare in flow records and cost little extra to encode directly. Also keeps every
 * cached encoding under VARLEN_LONG bytes (a UTF-16 unit is at most 3 UTF-8 bytes), so its prefix is 1 byte.
 */
const STRING_CHARS_MAX = 64;
/** Shorter strings (L < 4 with the prefix) do not fill one word; the byte loop writes them. */
const STRING_CHARS_MIN = 3;
const utf8Encoder = new TextEncoder();
/**
 * A null-prototype object rather than a Map: V8 looks a property key up by its internalized form and
 * turns the looked-up string into a pointer to that form, so that a later lookup with the same string
 * object compares pointers. Measured on the benchmark's records (equal names are distinct string
 * objects in different records): 17–20 ns a hit, against 25–35 ns for Map#get.
 */
let strings: Record<string, EncodedString> = Object.create(null) as Record<string, EncodedString>;
let stringCount = 0;
let stringMisses = 0;

function encodeString(s: string): EncodedString {
  const utf8 = utf8Encoder.encode(s);
  const length = 1 + utf8.length;
  const bytes = new Uint8Array(length);
  bytes[0] = utf8.length;
  bytes.set(utf8, 1);
  const full = length >>> 2;
  const words = new Int32Array(full + 2);
  const source = new DataView(bytes.buffer);
  words[0] = length;
  for (let i = 0; i < full; i++) words[1 + i] = source.getInt32(4 * i);
  words[full + 1] = source.getInt32(length - 4);
  return words;
}

/** The cached encoding of s, or undefined when s is not cached (and may not be: too short, too long, cache full). */
export function cachedString(s: string): EncodedString | undefined {
  const hit = strings[s];
  if (hit !== undefined || s.length < STRING_CHARS_MIN || s.length > STRING_CHARS_MAX) return hit;
  if (stringCount < STRINGS_MAX) {
    const e = encodeString(s);
    strings[s] = e;
    stringCount++;
    return e;
  }
  if (++stringMisses > MISSES_BEFORE_RESET) {
    strings = Object.create(null) as Record<string, EncodedString>;
    stringCount = 0;
    stringMisses = 0;
  }
  return undefined;
}

/** Writes an EncodedString at d[p..]; the caller has checked that its L bytes fit. Returns p + L. */
export function putEncodedString(d: DataView, p: number, e: EncodedString): number {
  const length = e[0] as number;
  const last = e.length - 1;
  for (let i = 1; i < last; i++) d.setInt32(p + 4 * i - 4, e[i] as number);
  d.setInt32(p + length - 4, e[last] as number);
  return p + length;
}

/**
 * IPv4 text → address. A Map, unlike the string cache: for address strings built anew for each record
 * the object lookup (which first looks the text up among V8's internalized strings) measured slower
 * than Map#get, 117 against 91 ns, while for repeated string objects it gained only 27 against 32 ns.
 */
const IPV4_MAX = 4096;
const ipv4 = new Map<string, number>();
let ipv4Misses = 0;
const parsed = new Uint8Array(4);

/** Dotted-quad text as an unsigned 32-bit number, or -1 when it is not an IPv4 address. */
export function ipv4Value(s: string): number {
  const hit = ipv4.get(s);
  if (hit !== undefined) return hit;
  if (!parseIpv4Into(s, parsed, 0)) return -1;
  const n = (parsed[0] as number) * 0x1000000 + (((parsed[1] as number) << 16) | ((parsed[2] as number) << 8) | (parsed[3] as number));
  if (ipv4.size < IPV4_MAX) ipv4.set(s, n);
  else if (++ipv4Misses > MISSES_BEFORE_RESET) {
    ipv4.clear();
    ipv4Misses = 0;
  }
  return n;
}
