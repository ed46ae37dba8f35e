// Test support: a mutation fuzzer for the decoder. It takes real messages (the vendor captures, the
// go-ipfix vectors, encoder output with lists; or NetFlow v9 and v5 packets, netflow-fuzz.ts) and corrupts
// them (bit flips, truncation, length fields rewritten, splices from other messages), then checks that the
// decoder returns or throws an IpfixError — never anything else — and how long each call took.
// Deterministic for a given seed.
import { readFileSync } from 'node:fs';
import { element } from '../registry.js';
import { decodeMessage } from '../decode-message.js';
import { isIpfixError } from '../errors.js';
import { MessageEncoder } from '../message-encoder.js';
import { TemplateStore } from '../template-store.js';
import { type FieldValue, type Template, VARIABLE_LENGTH } from '../types.js';
import { SHARED_IPFIX, readManifest, readVendorFile } from './fixtures.js';
import { antreaAgentTemplate, antreaAgentValues, makeTemplate, templateField } from './templates.js';

/** xorshift32: small, fast and reproducible. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** Sessions of messages to corrupt: each is decoded in order into one store, as an exporter sends it. */
export function corpus(): Uint8Array[][] {
  const sessions = readManifest().map((s) => s.files.map(readVendorFile));
  const vectors = readFileSync(new URL('go-ipfix-vectors.tsv', SHARED_IPFIX), 'utf8').trim().split('\n').slice(1)
    .map((l) => new Uint8Array(Buffer.from(l.split('\t')[1] ?? '', 'hex')));
  sessions.push(vectors);
  const inner = makeTemplate(400, [templateField('sourceMacAddress'), templateField('interfaceName')], 3);
  const outer = makeTemplate(401, [
    templateField('sourceIPv4Address'),
    { ie: element('basicList'), length: VARIABLE_LENGTH, scope: false },
    { ie: element('subTemplateList'), length: VARIABLE_LENGTH, scope: false },
    { ie: element('subTemplateMultiList'), length: VARIABLE_LENGTH, scope: false },
  ], 3);
  const rec = { template: inner, values: ['00:01:02:03:04:05', 'eth0'] as FieldValue[] };
  const enc = new MessageEncoder({ observationDomainId: 3, maxMessageSize: 1400 });
  enc.addTemplate(inner);
  enc.addTemplate(outer);
  for (let i = 0; i < 4; i++) {
    enc.addRecord(outer, [`10.0.0.${i}`,
      { kind: 'basicList', semantic: 3, ie: element('interfaceName'), fieldLength: VARIABLE_LENGTH, values: ['a', 'bb'] },
      { kind: 'subTemplateList', semantic: 3, templateId: 400, records: [rec, rec] },
      { kind: 'subTemplateMultiList', semantic: 3, entries: [{ templateId: 400, records: [rec] }] }]);
  }
  const antrea: Template = antreaAgentTemplate();
  enc.addTemplate(antrea);
  for (let i = 0; i < 10; i++) enc.addRecord(antrea, antreaAgentValues(i));
  sessions.push(enc.flush());
  return sessions;
}

export type Mutation = 'bitflip' | 'truncate' | 'length' | 'splice' | 'duplicate';
const MUTATIONS: Mutation[] = ['bitflip', 'truncate', 'length', 'splice', 'duplicate'];

/** Where a protocol's messages keep what the mutations aim at. */
export interface MessageShape {
  readonly headerLength: number;
  /** Whether bytes 2-3 are the message length (IPFIX), kept consistent by some mutations; else a count (NetFlow). */
  readonly lengthField: boolean;
  /** The set ids of template sets, whose field lengths are mutated too. */
  readonly templateSetIds: readonly number[];
}

export const IPFIX_SHAPE: MessageShape = { headerLength: 16, lengthField: true, templateSetIds: [2, 3] };

/** Offsets in `m` that hold 16-bit lengths or counts: the message length (or count), set lengths, template counts. */
function lengthOffsets(m: Uint8Array, shape: MessageShape): number[] {
  const out = [2];
  const end = shape.lengthField ? Math.min(m.length, ((m[2] ?? 0) << 8) | (m[3] ?? 0)) : m.length;
  for (let p = shape.headerLength; p + 4 <= end; ) {
    out.push(p + 2);
    const setId = ((m[p] as number) << 8) | (m[p + 1] as number);
    const len = ((m[p + 2] as number) << 8) | (m[p + 3] as number);
    if (shape.templateSetIds.includes(setId)) for (let q = p + 4; q + 4 <= p + len && q < p + 40; q += 4) out.push(q + 2);
    if (len < 4) break;
    p += len;
  }
  return out;
}

export function mutate(m: Uint8Array, other: Uint8Array, rand: () => number, shape: MessageShape = IPFIX_SHAPE): { bytes: Uint8Array; mutation: Mutation } {
  const keepLength = (b: Uint8Array) => {
    if (!shape.lengthField) return;
    b[2] = Math.min(b.length, 65535) >> 8; // keep the header consistent so that the sets are reached
    b[3] = Math.min(b.length, 65535) & 0xff;
  };
  const pick = (n: number) => Math.floor(rand() * n);
  const mutation = MUTATIONS[pick(MUTATIONS.length)] as Mutation;
  let b = new Uint8Array(m);
  switch (mutation) {
    case 'bitflip':
      for (let k = 1 + pick(8); k > 0; k--) {
        const i = pick(b.length);
        b[i] = (b[i] as number) ^ (1 << pick(8));
      }
      break;
    case 'truncate': {
      b = b.slice(0, pick(b.length + 1));
      if (b.length >= 4 && rand() < 0.5) keepLength(b);
      break;
    }
    case 'length': {
      const offs = lengthOffsets(b, shape);
      const at = offs[pick(offs.length)] as number;
      if (at + 1 < b.length) {
        const old = ((b[at] as number) << 8) | (b[at + 1] as number);
        const v = [0, 1, 3, 4, 5, 255, 256, 0xffff, old - 1, old + 1, old * 2, pick(65536)][pick(12)] as number;
        b[at] = (v >> 8) & 0xff;
        b[at + 1] = v & 0xff;
      }
      break;
    }
    case 'splice': {
      const from = pick(other.length);
      const piece = other.subarray(from, from + 1 + pick(64));
      const at = shape.headerLength + pick(Math.max(1, b.length - shape.headerLength));
      const replace = rand() < 0.5;
      const out = new Uint8Array(replace ? Math.max(b.length, at + piece.length) : b.length + piece.length);
      out.set(b.subarray(0, at));
      out.set(piece, at);
      out.set(b.subarray(replace ? at + piece.length : at), at + piece.length);
      b = out;
      if (rand() < 0.7) keepLength(b);
      break;
    }
    case 'duplicate': {
      // The same sets twice: template redefinition and repeated records.
      const body = b.subarray(shape.headerLength);
      const out = new Uint8Array(Math.min(65535, b.length + body.length));
      out.set(b);
      out.set(body.subarray(0, out.length - b.length), b.length);
      keepLength(out);
      b = out;
      break;
    }
  }
  return { bytes: b, mutation };
}

export interface FuzzReport {
  iterations: number;
  decoded: number;
  records: number;
  ipfixErrors: Record<string, number>;
  /** Anything thrown that is not an IpfixError: each is a bug. */
  crashes: { seed: number; iteration: number; mutation: Mutation; error: string; hex: string }[];
  slowestMs: number;
  /** The input that took longest, to investigate. */
  slowest?: { mutation: Mutation; hex: string };
}

/**
 * What is fuzzed: sessions that learn templates, and a decode of one message in a session. `decode` throws an
 * IpfixError for a message-level problem; anything else it throws is a crash (a bug).
 */
export interface FuzzTarget<S> {
  session(transport: 'udp' | 'tcp'): S;
  decode(session: S, bytes: Uint8Array): { readonly records: number; readonly errors: readonly { readonly code: string }[] };
  /** The sessions of messages mutated (default: corpus(), IPFIX) and their shape. */
  readonly corpus?: () => Uint8Array[][];
  readonly shape?: MessageShape;
}

/** The codec's decoder as a fuzz target; `visit` may inspect each decoded message (e.g. format it). */
export function decoderTarget(visit?: (d: ReturnType<typeof decodeMessage>) => void): FuzzTarget<TemplateStore> {
  return {
    session: (transport) => new TemplateStore({ transport, maxTemplates: 4096 }),
    decode: (store, bytes) => {
      const d = decodeMessage(bytes, store);
      visit?.(d);
      return { records: d.records.length, errors: d.errors };
    },
  };
}

/** Runs `iterations` mutations from `seed` against the codec's decoder. */
export function fuzz(iterations: number, seed: number, visit?: (d: ReturnType<typeof decodeMessage>) => void): FuzzReport {
  return fuzzTarget(decoderTarget(visit), iterations, seed);
}

/** Runs `iterations` mutations from `seed` against `target`. */
export function fuzzTarget<S>(target: FuzzTarget<S>, iterations: number, seed: number): FuzzReport {
  const sessions = (target.corpus ?? corpus)();
  const all = sessions.flat();
  const rand = rng(seed);
  const report: FuzzReport = { iterations, decoded: 0, records: 0, ipfixErrors: {}, crashes: [], slowestMs: 0 };
  for (let i = 0; i < iterations; ) {
    const messages = sessions[Math.floor(rand() * sessions.length)] as Uint8Array[];
    const session = target.session(rand() < 0.5 ? 'udp' : 'tcp');
    // Decode the session, corrupting some of its messages, so that data meets (corrupted) templates.
    for (const original of messages) {
      if (i >= iterations) break;
      const { bytes, mutation } = mutate(original, all[Math.floor(rand() * all.length)] as Uint8Array, rand, target.shape);
      i++;
      const t0 = performance.now();
      try {
        const d = target.decode(session, bytes);
        report.decoded++;
        report.records += d.records;
        for (const e of d.errors) report.ipfixErrors[e.code] = (report.ipfixErrors[e.code] ?? 0) + 1;
      } catch (err) {
        if (isIpfixError(err)) report.ipfixErrors[err.code] = (report.ipfixErrors[err.code] ?? 0) + 1;
        else report.crashes.push({ seed, iteration: i, mutation, error: err instanceof Error ? err.stack ?? err.message : String(err), hex: Buffer.from(bytes).toString('hex') });
      }
      const ms = performance.now() - t0;
      if (ms > report.slowestMs) {
        report.slowestMs = ms;
        report.slowest = { mutation, hex: Buffer.from(bytes).toString('hex') };
      }
    }
  }
  return report;
}
