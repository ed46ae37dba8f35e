// The changelog codec: a partition's aggregation state as records of the compacted topic
// processor.state (partition i holds the state of flows.raw partition i). A flow is two records, so that
// the frequent change (counters, times, lifecycle) does not rewrite the rare one (names, addresses):
//
//   key: flow key               value: 02 01 | Uint8 row | 4 Int32 LE (Service port, SNAT port, source port, exports) | Float64 row LE
//   key: flow key + 01          value: 02 02 | per interned column, in Avro's encoding: an Avro string (text) or bytes (address, UUID)
//   key: FF 01                  value: 02 03 | clock Float64 LE | receive clock Float64 LE | next flow sequence Float64 LE | input offset Float64 LE | outputs Float64 LE
//   key: FF 02 + source id      value: 02 04 | its event time Float64 LE | its latest receive time Float64 LE   (clock.ts)
//   key: FF 03                  value: 02 05 | input offset committed Float64 LE | outputs committed Float64 LE
//
// The flows, the sources and the watermark record are a checkpoint: the state as it was at the input
// offset in the watermark record, written by the commits that take one (processor/task.ts). The progress
// record (FF 03) is written by every commit, with the input offset committed with it: a restore that finds
// another committed offset knows the group's offsets were moved (a replay) since; one that finds the
// checkpoint behind it reads the input again from the checkpoint's offset, and of the outputs that this
// makes (counted from the start of the state, `outputs`) drops those already committed.
//
// A deleted flow gets a tombstone under both its keys, a forgotten source under its key. Restoring reads
// the partition to its end and applies every record in order (restore.ts). Version 1 (before the clock
// had sources) is not read: its state is refused, with the way out (a replay) in the message.
import { FlowaggError } from '../../lib/errors.js';
import { writeAll } from '../../schemas/avro-binary.js';
import type { RecordBuffer } from '../../schemas/record-buffer.js';
import { latin1 } from '../../schemas/flow-record-scanner.js';
import { PROCESSOR_STATE_CORRUPT } from '../errors.js';
import { EMPTY_ID } from './intern.js';
import { F_PEER_WAIT, F_WIDTH, I_INTERNED_END, I_SERVICE_PORT, I_UUID, I_WIDTH, U_DIRTY, U_WIDTH } from './columns.js';
import type { FlowStore } from './store.js';

const VERSION = 2;
const KIND_STATS = 1;
const KIND_IDENTITY = 2;
const KIND_WATERMARK = 3;
const KIND_SOURCE = 4;
const KIND_PROGRESS = 5;
const IDENTITY_SUFFIX = 1;
/** Int32 columns after the interned ones: plain integers, kept as they are. */
const PLAIN_INTS = I_WIDTH - I_SERVICE_PORT;
const STATS_LENGTH = 2 + U_WIDTH + 4 * PLAIN_INTS + 8 * F_WIDTH;
/** A stats record written before the Float64 row's last column (F_PEER_WAIT) was added: that column reads as 0. */
const STATS_LENGTH_WITHOUT_PEER_WAIT = STATS_LENGTH - 8;

export const WATERMARK_KEY = Buffer.from([0xff, 0x01]);
export const PROGRESS_KEY = Buffer.from([0xff, 0x03]);
const SOURCE_PREFIX = Buffer.from([0xff, 0x02]);
/** Flow keys are 6 (no addresses), 14 (IPv4) or 38 (IPv6) bytes; identity keys one more. */
const FLOW_KEY_LENGTHS = new Set([6, 14, 38]);
const IDENTITY_KEY_LENGTHS = new Set([7, 15, 39]);

export function identityKey(flowKey: string): Buffer {
  const b = Buffer.allocUnsafe(flowKey.length + 1);
  b.write(flowKey, 0, 'latin1');
  b[flowKey.length] = IDENTITY_SUFFIX;
  return b;
}

// The encoders of a flow's records write at out.pos and return where they started: the record is
// out.buf[start, out.pos) (ChangelogRecords keeps the range, no Buffer is made for it).

/** The changelog key of a flow's stats (the flow key) or identity (flow key + 01), written into `out`. */
export function encodeKey(flowKey: string, identity: boolean, out: RecordBuffer): number {
  out.reserve(flowKey.length + 1);
  const o = out.buf;
  const start = out.pos;
  let p = start;
  // A key is at most 38 bytes: copied in the loop, not through Buffer.write's native call.
  for (let k = 0; k < flowKey.length; k++) o[p++] = flowKey.charCodeAt(k);
  if (identity) o[p++] = IDENTITY_SUFFIX;
  out.pos = p;
  return start;
}

/** Text columns hold UTF-8; the others (UUIDs, addresses) one byte per character. */
const isTextColumn = (c: number): boolean => c < I_UUID;

export function encodeStats(store: FlowStore, slot: number, out: RecordBuffer): number {
  out.reserve(STATS_LENGTH);
  const o = out.buf;
  const v = out.view;
  let p = out.pos;
  const start = p;
  o[p++] = VERSION;
  o[p++] = KIND_STATS;
  const u = slot * U_WIDTH;
  for (let c = 0; c < U_WIDTH; c++) o[p++] = c === U_DIRTY ? 0 : store.u8[u + c]!;
  const i = slot * I_WIDTH + I_SERVICE_PORT;
  for (let c = 0; c < PLAIN_INTS; c++, p += 4) v.setInt32(p, store.i32[i + c]!, true);
  const f = slot * F_WIDTH;
  for (let c = 0; c < F_WIDTH; c++, p += 8) v.setFloat64(p, store.f64[f + c]!, true);
  out.pos = p;
  return start;
}

/** A column's Avro encoding in the pool: as a string (text columns) or as bytes (addresses, UUIDs). */
function columnEncoding(pool: FlowStore['pool'], c: number, id: number): Buffer {
  return isTextColumn(c) ? pool.avroString(id) : pool.avroBytes(id);
}

export function encodeIdentity(store: FlowStore, slot: number, out: RecordBuffer): number {
  const pool = store.pool;
  const ids = store.i32;
  const at = slot * I_WIDTH;
  let room = 2;
  for (let c = 0; c < I_INTERNED_END; c++) {
    const id = ids[at + c]!;
    room += id === EMPTY_ID ? 1 : columnEncoding(pool, c, id).length;
  }
  out.reserve(room);
  const o = out.buf;
  let p = out.pos;
  const start = p;
  o[p++] = VERSION;
  o[p++] = KIND_IDENTITY;
  for (let c = 0; c < I_INTERNED_END; c++) {
    const id = ids[at + c]!;
    if (id === EMPTY_ID) o[p++] = 0;
    else p = writeAll(o, p, columnEncoding(pool, c, id));
  }
  out.pos = p;
  return start;
}

const WATERMARK_LENGTH = 42;
/** A watermark record written before checkpoints (every commit wrote the whole change): no output count, read as 0. */
const WATERMARK_LENGTH_WITHOUT_OUTPUTS = 34;
const SOURCE_LENGTH = 18;
const PROGRESS_LENGTH = 18;

/** Where the checkpoint stands: the partition's times, the next flow sequence, its input offset and the outputs made so far. */
export interface Checkpoint {
  readonly watermark: number;
  readonly received: number;
  readonly nextSeq: number;
  readonly inputOffset: number;
  readonly outputs: number;
}

/** A record of the partition's own (not a flow's): version, kind, then Float64 LE values. */
function encodeNumbers(kind: number, values: readonly number[]): Buffer {
  const b = Buffer.alloc(2 + 8 * values.length);
  b[0] = VERSION;
  b[1] = kind;
  values.forEach((v, i) => b.writeDoubleLE(v, 2 + 8 * i));
  return b;
}

export function encodeWatermark(c: Checkpoint): Buffer {
  return encodeNumbers(KIND_WATERMARK, [c.watermark, c.received, c.nextSeq, c.inputOffset, c.outputs]);
}

/** What a commit committed: the input offset and how many outputs of the state (since its start) are in the output topic. */
export interface Progress {
  readonly inputOffset: number;
  readonly outputs: number;
}

export function encodeProgress(p: Progress): Buffer {
  return encodeNumbers(KIND_PROGRESS, [p.inputOffset, p.outputs]);
}

/** The changelog key of a source of the partition clock. */
export function sourceKey(id: string): Buffer {
  const b = Buffer.allocUnsafe(SOURCE_PREFIX.length + Buffer.byteLength(id, 'latin1'));
  SOURCE_PREFIX.copy(b);
  b.write(id, SOURCE_PREFIX.length, 'latin1');
  return b;
}

export function encodeSource(eventTime: number, receivedAt: number): Buffer {
  return encodeNumbers(KIND_SOURCE, [eventTime, receivedAt]);
}

export type ChangelogRecord =
  | { readonly kind: 'stats'; readonly flowKey: string }
  | { readonly kind: 'identity'; readonly flowKey: string }
  | ({ readonly kind: 'watermark' } & Checkpoint)
  | ({ readonly kind: 'progress' } & Progress)
  | { readonly kind: 'deleted'; readonly flowKey: string }
  | { readonly kind: 'source'; readonly id: string; readonly eventTime: number; readonly receivedAt: number }
  | { readonly kind: 'sourceForgotten'; readonly id: string };

function corrupt(why: string, key: Buffer): FlowaggError {
  return new FlowaggError(PROCESSOR_STATE_CORRUPT, `changelog record with key ${key.toString('hex')}: ${why}`, { context: { key: key.toString('hex') } });
}

/**
 * Applies one changelog record to the store (creating the flow's slot on its first record); a
 * watermark or source record is returned for the caller to keep. Throws PROCESSOR_STATE_CORRUPT for a
 * record this version cannot read.
 */
export function applyChangelogRecord(store: FlowStore, key: Buffer, value: Buffer | null): ChangelogRecord {
  if (value !== null && value.length >= 1 && value[0] !== VERSION) {
    throw corrupt(`version ${value[0]} is not ${VERSION}: written by another flowagg version (replay the partition into a new processor.state: flowagg offsets reset --group <processor group> --to-earliest, with a new log.topics.processorState)`, key);
  }
  if (key.length === WATERMARK_KEY.length && key.equals(WATERMARK_KEY)) {
    if (value === null || (value.length !== WATERMARK_LENGTH && value.length !== WATERMARK_LENGTH_WITHOUT_OUTPUTS) || value[1] !== KIND_WATERMARK) throw corrupt('not a watermark record', key);
    const outputs = value.length === WATERMARK_LENGTH ? value.readDoubleLE(34) : 0;
    return { kind: 'watermark', watermark: value.readDoubleLE(2), received: value.readDoubleLE(10), nextSeq: value.readDoubleLE(18), inputOffset: value.readDoubleLE(26), outputs };
  }
  if (key.length === PROGRESS_KEY.length && key.equals(PROGRESS_KEY)) {
    if (value === null || value.length !== PROGRESS_LENGTH || value[1] !== KIND_PROGRESS) throw corrupt('not a progress record', key);
    return { kind: 'progress', inputOffset: value.readDoubleLE(2), outputs: value.readDoubleLE(10) };
  }
  if (key.length > SOURCE_PREFIX.length && key[0] === SOURCE_PREFIX[0] && key[1] === SOURCE_PREFIX[1]) {
    const id = latin1(key, SOURCE_PREFIX.length, key.length);
    if (value === null) return { kind: 'sourceForgotten', id };
    if (value.length !== SOURCE_LENGTH || value[1] !== KIND_SOURCE) throw corrupt('not a source record', key);
    return { kind: 'source', id, eventTime: value.readDoubleLE(2), receivedAt: value.readDoubleLE(10) };
  }
  const identity = IDENTITY_KEY_LENGTHS.has(key.length);
  if (!identity && !FLOW_KEY_LENGTHS.has(key.length)) throw corrupt(`a key of ${key.length} bytes is no flow key`, key);
  const flowKey = latin1(key, 0, identity ? key.length - 1 : key.length);
  if (value === null) {
    const slot = store.slotOf(flowKey);
    if (!identity && slot >= 0) store.remove(slot);
    return { kind: 'deleted', flowKey };
  }
  if (value.length < 2) throw corrupt(`${value.length} bytes`, key);
  let slot = store.slotOf(flowKey);
  if (slot < 0) slot = store.add(flowKey);
  if (value[1] === KIND_STATS && !identity) {
    if (value.length !== STATS_LENGTH && value.length !== STATS_LENGTH_WITHOUT_PEER_WAIT) throw corrupt(`${value.length} bytes, a stats record has ${STATS_LENGTH}`, key);
    let p = 2;
    const u = slot * U_WIDTH;
    for (let c = 0; c < U_WIDTH; c++) store.u8[u + c] = value[p++]!;
    const i = slot * I_WIDTH + I_SERVICE_PORT;
    for (let c = 0; c < PLAIN_INTS; c++, p += 4) store.i32[i + c] = value.readInt32LE(p);
    const f = slot * F_WIDTH;
    for (let c = 0; p < value.length; c++, p += 8) store.f64[f + c] = value.readDoubleLE(p);
    if (value.length === STATS_LENGTH_WITHOUT_PEER_WAIT) store.f64[f + F_PEER_WAIT] = 0;
    return { kind: 'stats', flowKey };
  }
  if (value[1] === KIND_IDENTITY && identity) {
    let p = 2;
    for (let c = 0; c < I_INTERNED_END; c++) {
      let zigzag = 0;
      let shift = 0;
      for (;;) {
        const b = value[p++];
        if (b === undefined || shift > 28) throw corrupt('truncated', key);
        zigzag |= (b & 0x7f) << shift;
        if (b < 0x80) break;
        shift += 7;
      }
      const n = zigzag >>> 1;
      if ((zigzag & 1) !== 0 || p + n > value.length) throw corrupt('bad or truncated length', key);
      store.setInternedBytes(slot, c, isTextColumn(c) ? 'utf8' : 'latin1', value, p, n);
      p += n;
    }
    if (p !== value.length) throw corrupt(`${value.length - p} trailing bytes`, key);
    return { kind: 'identity', flowKey };
  }
  throw corrupt(`kind ${value[1]} does not fit a key of ${key.length} bytes`, key);
}
