// Text forms of addresses and strings, with fast paths for what flow records are mostly made of:
// short ASCII strings (pod and namespace names) and IPv4 addresses. These sit on the decode hot path.
const utf8 = new TextDecoder('utf-8', { fatal: false });
const utf8Encoder = new TextEncoder();

/**
 * Flow records repeat the same short strings (pod, namespace and node names, TCP states) over and
 * over, so short strings go through a direct-mapped cache keyed by their bytes: a hit costs a hash
 * and a compare of the bytes, allocates nothing, and returns the identical string. Bounded: SLOTS
 * entries of at most CACHED_MAX bytes each.
 */
const SLOTS = 4096;
const CACHED_MAX = 48;
const slotBytes = new Uint8Array(SLOTS * CACHED_MAX);
const slotLength = new Int32Array(SLOTS).fill(-1);
const slotString: string[] = new Array<string>(SLOTS).fill('');

function decodeUncached(b: Uint8Array, start: number, length: number): string {
  const end = start + length;
  // Node's native slice: cheaper than TextDecoder (and than toString's argument checks) for short input.
  if (b instanceof Buffer) return (b as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end);
  if (length <= 16) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = b[i] as number;
      if (c >= 0x80) return utf8.decode(b.subarray(start, end));
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8.decode(b.subarray(start, end));
}

/**
 * Decodes UTF-8, dropping trailing NUL bytes: exporters pad fixed-length strings (and some terminate
 * variable-length ones) with NULs, which are never part of the name they carry.
 */
export function decodeUtf8(b: Uint8Array, start: number, length: number): string {
  while (length > 0 && b[start + length - 1] === 0) length--;
  if (length === 0) return '';
  if (length > CACHED_MAX) return utf8.decode(b.subarray(start, start + length));
  // Hashes a sample of the bytes (the ends vary most between names); the compare below is exact.
  const last = start + length - 1;
  let h = Math.imul(length ^ (b[start] as number), 0x01000193);
  h = Math.imul(h ^ (b[last] as number), 0x01000193);
  h = Math.imul(h ^ (b[last - (length >> 1)] as number), 0x01000193);
  h = Math.imul(h ^ (b[last - (length >> 2)] as number), 0x01000193);
  h = Math.imul(h ^ ((b[last - 1] as number) | ((b[last - 2] as number) << 8)), 0x01000193);
  const slot = (h ^ (h >>> 15)) & (SLOTS - 1);
  const base = slot * CACHED_MAX;
  if (slotLength[slot] === length) {
    let i = 0;
    while (i < length && slotBytes[base + i] === b[start + i]) i++;
    if (i === length) return slotString[slot] as string;
  }
  const s = decodeUncached(b, start, length);
  for (let i = 0; i < length; i++) slotBytes[base + i] = b[start + i] as number;
  slotLength[slot] = length;
  slotString[slot] = s;
  return s;
}

/** Writes s as UTF-8 at b[p..]; returns the byte count, or -1 when it needs more than `room` bytes. */
export function encodeUtf8Into(s: string, b: Uint8Array, p: number, room: number): number {
  const n = s.length;
  if (n <= room) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[p + i] = c;
    }
    if (i === n) return n;
  }
  const bytes = utf8Encoder.encode(s);
  if (bytes.length > room) return -1;
  b.set(bytes, p);
  return bytes.length;
}

export function utf8Length(s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s, 'utf8');
  return n;
}

/** The same kind of direct-mapped cache as for strings, for IPv4 text keyed by the address. */
const V4_SLOTS = 4096;
const v4Key = new Float64Array(V4_SLOTS).fill(-1);
const v4Text: string[] = new Array<string>(V4_SLOTS).fill('');

export function formatIpv4(b: Uint8Array, p: number): string {
  const a = b[p] as number;
  const c = b[p + 2] as number;
  const d = b[p + 3] as number;
  const key = a * 0x1000000 + (((b[p + 1] as number) << 16) | (c << 8) | d);
  const slot = (key ^ (key >>> 12) ^ (a << 4)) & (V4_SLOTS - 1);
  if (v4Key[slot] === key) return v4Text[slot] as string;
  const text = `${a}.${b[p + 1]}.${c}.${d}`;
  v4Key[slot] = key;
  v4Text[slot] = text;
  return text;
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Writes the RFC 5952 text of the IPv6 address s[at, at + 16) at b[p] (lower-case hex, the longest run
 * (≥ 2) of zero groups as "::", IPv4-mapped kept as hex), at most 39 bytes; returns where it ends.
 * Writers that build lines in place call it straight; formatIpv6 makes a string of it.
 */
export function putIpv6(b: Uint8Array, p: number, s: Uint8Array, at: number): number {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (s[at + 2 * i] === 0 && s[at + 2 * i + 1] === 0) {
      let j = i;
      while (j < 8 && s[at + 2 * j] === 0 && s[at + 2 * j + 1] === 0) j++;
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    } else i++;
  }
  if (bestLen < 2) bestStart = -1;
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      b[p++] = 58;
      b[p++] = 58;
      i += bestLen - 1;
      continue;
    }
    if (i > 0 && i !== bestStart + bestLen) b[p++] = 58;
    const group = ((s[at + 2 * i] as number) << 8) | (s[at + 2 * i + 1] as number);
    for (let shift = group >= 0x1000 ? 12 : group >= 0x100 ? 8 : group >= 0x10 ? 4 : 0; shift >= 0; shift -= 4) b[p++] = HEX_DIGITS[(group >>> shift) & 15] as number;
  }
  return p;
}

const ipv6Text = Buffer.alloc(39);

/** RFC 5952 text (putIpv6's). */
export function formatIpv6(b: Uint8Array, p: number): string {
  return ipv6Text.toString('latin1', 0, putIpv6(ipv6Text, 0, b, p));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function formatMac(b: Uint8Array, p: number): string {
  return `${HEX[b[p] as number]}:${HEX[b[p + 1] as number]}:${HEX[b[p + 2] as number]}:${HEX[b[p + 3] as number]}:${HEX[b[p + 4] as number]}:${HEX[b[p + 5] as number]}`;
}

export function toHex(bytes: Uint8Array): string {
  let s = '';
  for (const x of bytes) s += HEX[x];
  return s;
}

/** Parses dotted-quad IPv4 text into b[p..p+4); false when it is not one. */
export function parseIpv4Into(s: string, b: Uint8Array, p: number): boolean {
  let part = 0;
  let digits = 0;
  let k = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || k > 3) return false;
      b[p + k++] = part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
      if (part > 255) return false;
    } else return false;
  }
  return k === 4;
}

/** Parses IPv6 text (with "::" and an optional dotted-quad tail) into b[p..p+16); false when invalid. */
export function parseIpv6Into(s: string, b: Uint8Array, p: number): boolean {
  const groups: number[] = [];
  let tail: number[] = [];
  const dbl = s.indexOf('::');
  if (dbl !== s.lastIndexOf('::')) return false;
  const parseGroups = (part: string, out: number[]): boolean => {
    if (part === '') return true;
    const items = part.split(':');
    for (let i = 0; i < items.length; i++) {
      const it = items[i] as string;
      if (i === items.length - 1 && it.includes('.')) {
        const v4 = new Uint8Array(4);
        if (!parseIpv4Into(it, v4, 0)) return false;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(it)) return false;
        out.push(parseInt(it, 16));
      }
    }
    return true;
  };
  if (dbl >= 0) {
    if (!parseGroups(s.slice(0, dbl), groups) || !parseGroups(s.slice(dbl + 2), (tail = []))) return false;
    if (groups.length + tail.length > 7) return false;
    while (groups.length + tail.length < 8) groups.push(0);
  } else if (!parseGroups(s, groups) || groups.length !== 8) return false;
  const all = [...groups, ...tail];
  for (let i = 0; i < 8; i++) {
    b[p + 2 * i] = (all[i] as number) >> 8;
    b[p + 2 * i + 1] = (all[i] as number) & 0xff;
  }
  return true;
}

/** Parses "00:0c:29:70:86:09" (or with '-') into b[p..p+6). */
export function parseMacInto(s: string, b: Uint8Array, p: number): boolean {
  const m = /^([0-9a-fA-F]{2})[:-]([0-9a-fA-F]{2})[:-]([0-9a-fA-F]{2})[:-]([0-9a-fA-F]{2})[:-]([0-9a-fA-F]{2})[:-]([0-9a-fA-F]{2})$/.exec(s);
  if (m === null) return false;
  for (let i = 0; i < 6; i++) b[p + i] = parseInt(m[i + 1] as string, 16);
  return true;
}
