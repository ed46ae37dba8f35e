// The aggregation of one input partition: its flow store, its expiry queue and its clock, fed record by
// record, writing output records and, on demand, the changelog of what changed. Pure: no I/O and no
// clock of its own; time comes from the records (clock.ts), so the same records give the same outputs (and
// the same changelog) whatever the batching, the commits and the restarts in between.
//
// Per record (reference §5.5, §5.6, Antrea's "(B)" behaviour):
//   1. the partition clock takes the record (its source's progress); every flow due by then expires first;
//   2. the record creates its flow, correlates it (the other Node's half) or aggregates into it; its
//      deadlines count from the record's event time (from the partition's, for a late record).
// Expiry of a flow (its active or inactive deadline passed):
//   - a half still waiting for its peer spends one retry; past the budget it waits `allowedLatenessMs`
//     more, and until Antrea's retries have passed in receive time too (the peer's source may not have
//     been seen yet, so it could not hold the clock back), then is exported alone (`uncorrelated:
//     export`) or dropped (`drop`, Antrea's behaviour);
//   - an exportable flow with new data is exported (deltas and throughputs reset after);
//   - past its inactive deadline it lingers `allowedLatenessMs` for late records, then is deleted; else
//     its next active deadline is set.
import type { ProduceRecord } from '../../lib/log/types.js';
import { FLOW_KEY_MAX_LENGTH } from '../../schemas/flow-key.js';
import { latin1, type ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import type { MetadataOptions } from '../metadata-fill.js';
import { FLOW_TYPE_INTER_NODE, isDenied, isFromSourceNode, needsCorrelation, R, SourceIds, writeRecordFlowKey } from '../record-input.js';
import {
  type Checkpoint, encodeIdentity, encodeKey, encodeProgress, encodeSource, encodeStats, encodeWatermark, identityKey, PROGRESS_KEY, sourceKey, WATERMARK_KEY,
} from './changelog.js';
import { type ClockSettings, PartitionClock } from './clock.js';
import {
  DIRTY_IDENTITY, DIRTY_STATS, F_ACTIVE, F_INACTIVE, F_PEER_WAIT, F_SEQ, F_WIDTH, I_EXPORTS, I_WIDTH, SIDE_DESTINATION, SIDE_SOURCE, U_BASE_SIDE, U_DIRTY,
  U_EGRESS_ACTION, U_FLOW_TYPE, U_INGRESS_ACTION, U_LIFECYCLE, U_RETRIES, U_WIDTH,
} from './columns.js';
import { decorateFlow } from './decorate.js';
import { ExpiryHeap } from './expiry-heap.js';
import { keyBuffer } from './flow-key-text.js';
import {
  awaitsPeer, hasNewData, LONE_EXPORTED, LONE_PENDING, ON_EXPORTED, ON_GAVE_UP, ON_PEER, ON_RECORD, PENDING, transition, WAITING,
} from './lifecycle.js';
import type { OutputEncoder } from './output.js';
import type { ChangelogRecords } from './changelog-records.js';
import { aggregate, correlate, createFlow, resetAfterExport } from './rules.js';
import { FlowStore } from './store.js';

export interface AggregatorSettings {
  readonly activeMs: number;
  readonly inactiveMs: number;
  /** A flow that became ready is exported this long after (Antrea's 1 s export tick). */
  readonly exportDelayMs: number;
  /** Active expiries a half waits for its peer (Antrea's MaxRetries, 2). */
  readonly correlationRetries: number;
  readonly uncorrelated: 'export' | 'drop';
  readonly maxFlows: number;
  /**
   * How long past its deadlines a half waiting for its peer, or an inactive flow, is kept for records that
   * come late; also how far behind the receive clock a slow source may hold the partition's time.
   */
  readonly allowedLatenessMs: number;
  readonly clock: Omit<ClockSettings, 'maxLagMs'>;
}

export interface AggregatorCounters {
  /** Records aggregated (stale ones included). */
  records: number;
  /** Records ignored as not newer than the previous one from the same Node. */
  stale: number;
  /** Records whose event time was behind the partition's by more than the allowed lateness (aggregated all the same). */
  late: number;
  /** Records without flow start or end time, skipped as Antrea skips them. */
  missingTimes: number;
  created: number;
  correlated: number;
  exported: number;
  uncorrelatedExported: number;
  uncorrelatedDropped: number;
  /** Flows expired early because the partition held maxFlows. */
  evicted: number;
  deleted: number;
}

const SOURCE_ONLY = [SIDE_SOURCE] as const;
const DESTINATION_ONLY = [SIDE_DESTINATION] as const;
const BOTH_SIDES = [SIDE_SOURCE, SIDE_DESTINATION] as const;

export class Aggregator {
  readonly store: FlowStore;
  readonly counters: AggregatorCounters = {
    records: 0, stale: 0, late: 0, missingTimes: 0, created: 0, correlated: 0, exported: 0, uncorrelatedExported: 0, uncorrelatedDropped: 0, evicted: 0, deleted: 0,
  };
  readonly clock: PartitionClock;
  private readonly sources = new SourceIds();
  private readonly heap: ExpiryHeap;
  private nextSeq = 0;
  /** Outputs this state made since it started: the ordinal of the next one. */
  private emitted = 0;
  /** Outputs before this ordinal are in the output topic already (the input is read again from a checkpoint). */
  private committedOutputs = 0;
  private outputs: ProduceRecord[] = [];
  private tombstones: Buffer[] = [];
  private readonly outputBuffer = new RecordBuffer();
  private readonly changelogBuffer = new RecordBuffer();
  /** The flow key of the record being added. */
  private readonly keyBytes = Buffer.alloc(FLOW_KEY_MAX_LENGTH);

  constructor(
    private readonly settings: AggregatorSettings,
    private readonly encode: OutputEncoder,
    private readonly metadata: MetadataOptions,
    store = new FlowStore(),
  ) {
    this.store = store;
    this.clock = new PartitionClock({ ...settings.clock, maxLagMs: settings.allowedLatenessMs });
    this.heap = new ExpiryHeap(store.capacity);
    store.onGrow = (capacity) => this.heap.grow(capacity);
  }

  /** Output records waiting for the next commit. */
  get pending(): number {
    return this.outputs.length;
  }

  /** Changelog records waiting for the next checkpoint (an upper bound). */
  get changed(): number {
    return this.tombstones.length + this.store.dirtyCount;
  }

  get flows(): number {
    return this.store.size;
  }

  /** Event time (ms) of the partition: flows due by it have expired. */
  get watermark(): number {
    return this.clock.now;
  }

  /** Takes a record into the partition's clock; returns its event time. Taking it again changes nothing. */
  observe(r: ScannedRecord): number {
    return this.clock.observe(this.sources.of(r), r.num0(R.exportTime), r.num0(R.receiveTime));
  }

  /** A clock tick of the log (ingest's receive time while no record comes). */
  tick(receiveTime: number): void {
    this.clock.tick(receiveTime);
  }

  /** Expires every flow due by the partition's time; stops early, returning false, once `budget` records are pending. */
  expireDue(budget = Infinity): boolean {
    const w = this.clock.now;
    for (;;) {
      const slot = this.heap.peek();
      if (slot < 0 || this.heap.peekDeadline() > w) return true;
      if (this.pending >= budget) return false;
      this.expire(slot, w, false);
    }
  }

  /** Feeds one record without a budget: observe, expire, add. */
  process(r: ScannedRecord): void {
    const t = this.observe(r);
    this.expireDue();
    this.add(r, t);
  }

  /** Aggregates one record of event time `t` (observe()); the caller has expired what was due. */
  add(r: ScannedRecord, t: number): void {
    const start = r.num[R.flowStart]!;
    const end = r.num[R.flowEnd]!;
    if (start !== start || end !== end) {
      this.counters.missingTimes++;
      return;
    }
    this.counters.records++;
    const keyLength = writeRecordFlowKey(r, this.keyBytes);
    const correlation = needsCorrelation(r);
    const side = isFromSourceNode(r) ? SIDE_SOURCE : SIDE_DESTINATION;
    const own = correlation ? (side === SIDE_SOURCE ? SOURCE_ONLY : DESTINATION_ONLY) : BOTH_SIDES;
    const { store, settings } = this;
    const w = this.clock.now;
    if (this.clock.isLate(t)) this.counters.late++;
    const base = t > w ? t : w;
    let slot = store.slotOfBytes(this.keyBytes, keyLength);
    const created = slot < 0;
    if (created) {
      if (store.size >= settings.maxFlows) this.evict();
      slot = store.add(latin1(this.keyBytes, 0, keyLength));
    }
    // Read after add(), which may have grown (replaced) the store's arrays.
    const f = store.f64;
    const u8 = store.u8;
    if (created) {
      createFlow(store, slot, r, own, side);
      const u = slot * U_WIDTH;
      u8[u + U_LIFECYCLE] = correlation ? WAITING : PENDING;
      u8[u + U_BASE_SIDE] = side;
      const at = slot * F_WIDTH;
      f[at + F_SEQ] = this.nextSeq++;
      f[at + F_INACTIVE] = base + Math.max(settings.inactiveMs, correlation ? settings.activeMs : 0);
      f[at + F_ACTIVE] = base + (correlation ? settings.activeMs : settings.exportDelayMs);
      const received = this.clock.received;
      f[at + F_PEER_WAIT] = correlation && received > 0 ? received + settings.correlationRetries * settings.activeMs : 0;
      this.counters.created++;
    } else {
      const u = slot * U_WIDTH;
      const state = u8[u + U_LIFECYCLE]!;
      const peer = correlation && awaitsPeer(state) && u8[u + U_BASE_SIDE] !== side;
      if (peer) {
        correlate(store, slot, r);
        this.counters.correlated++;
      }
      const fresh = aggregate(store, slot, r, own, side);
      if (!fresh) this.counters.stale++;
      if (peer || fresh) u8[u + U_LIFECYCLE] = transition(state, peer ? ON_PEER : ON_RECORD);
      const at = slot * F_WIDTH;
      // Never earlier: a record from a source behind the one that set it does not shorten a flow's life.
      f[at + F_INACTIVE] = Math.max(f[at + F_INACTIVE]!, base + settings.inactiveMs);
      if (peer) f[at + F_ACTIVE] = base + settings.exportDelayMs;
      store.markDirty(slot, DIRTY_STATS);
    }
    this.schedule(slot, w);
  }

  /**
   * Queues a flow at its next deadline: the sooner of its active and inactive ones, or, once inactive (a
   * lingering flow, kept for late records), the end of its lateness. An active deadline in the past (a late
   * record revived a lingering flow) is due at once.
   */
  private schedule(slot: number, w: number): void {
    const at = slot * F_WIDTH;
    const f = this.store.f64;
    const inactive = f[at + F_INACTIVE]!;
    this.heap.set(slot, inactive > w ? Math.min(f[at + F_ACTIVE]!, inactive) : inactive + this.settings.allowedLatenessMs, f[at + F_SEQ]!);
  }

  /** Expires one flow due by `w`; `forced` (eviction, end of input) gives up waiting, exports and deletes now. */
  private expire(slot: number, w: number, forced: boolean): void {
    const { store, settings } = this;
    const u = slot * U_WIDTH;
    const at = slot * F_WIDTH;
    const f = store.f64;
    if (store.u8[u + U_LIFECYCLE] === WAITING) {
      const retries = store.u8[u + U_RETRIES]! + 1;
      const lateness = settings.allowedLatenessMs;
      // Antrea's retries, one active timeout each, then the allowed lateness: the peer may be a slow source's.
      const wait = retries <= settings.correlationRetries ? settings.activeMs : retries === settings.correlationRetries + 1 && lateness > 0 ? lateness : 0;
      // Event time spent, the half still waits out the retries in receive time, an active timeout at a time:
      // its peer's source may reach the log later than the others (read late, or connected late) with
      // records far behind the time they made, a source the clock did not know and so could not wait for.
      const next = wait > 0 ? wait : this.clock.received < f[at + F_PEER_WAIT]! ? settings.activeMs : 0;
      if (!forced && next > 0) {
        if (wait > 0) store.u8[u + U_RETRIES] = retries;
        f[at + F_ACTIVE] = w + next;
        f[at + F_INACTIVE] = w + Math.max(wait, settings.inactiveMs);
        store.markDirty(slot, DIRTY_STATS);
        this.schedule(slot, w);
        return;
      }
      if (settings.uncorrelated === 'drop') {
        this.counters.uncorrelatedDropped++;
        this.delete(slot);
        return;
      }
      store.u8[u + U_LIFECYCLE] = transition(WAITING, ON_GAVE_UP);
      this.counters.uncorrelatedExported++;
    }
    if (hasNewData(store.u8[u + U_LIFECYCLE]!)) this.export(slot, w);
    if (forced || f[at + F_INACTIVE]! + settings.allowedLatenessMs <= w) {
      this.delete(slot);
      return;
    }
    if (f[at + F_ACTIVE]! <= w) f[at + F_ACTIVE] = w + settings.activeMs;
    store.markDirty(slot, DIRTY_STATS);
    this.schedule(slot, w);
  }

  private export(slot: number, w: number): void {
    const { store } = this;
    const i = slot * I_WIDTH;
    const u = slot * U_WIDTH;
    const state = store.u8[u + U_LIFECYCLE]!;
    if (store.i32[i + I_EXPORTS] === 0) {
      // Antrea fills the missing side of an inter-Node flow that no peer record completed.
      const uncorrelated = state === LONE_PENDING || state === LONE_EXPORTED || isDenied(store.u8[u + U_EGRESS_ACTION]!, store.u8[u + U_INGRESS_ACTION]!);
      if (decorateFlow(store, slot, this.metadata, store.u8[u + U_FLOW_TYPE] === FLOW_TYPE_INTER_NODE && uncorrelated)) store.markDirty(slot, DIRTY_IDENTITY);
    }
    this.encode(store, slot, w, this.outputBuffer);
    this.emit({ key: keyBuffer(store.keys[slot]!), value: this.outputBuffer.value() });
    store.i32[i + I_EXPORTS]!++;
    resetAfterExport(store, slot);
    store.u8[u + U_LIFECYCLE] = transition(state, ON_EXPORTED);
    this.counters.exported++;
  }

  /** An output record that goes with the state's outputs, in their order: a NetFlow record passed through. */
  passThrough(record: ProduceRecord): void {
    this.emit(record);
  }

  private emit(record: ProduceRecord): void {
    if (this.emitted++ >= this.committedOutputs) this.outputs.push(record);
  }

  private delete(slot: number): void {
    this.forget(slot);
    this.counters.deleted++;
  }

  /** Removes a flow, its tombstones queued for the changelog. */
  private forget(slot: number): void {
    const key = this.store.keys[slot]!;
    this.heap.remove(slot);
    this.tombstones.push(keyBuffer(key), identityKey(key));
    this.store.remove(slot);
  }

  /** Makes room for a new flow: the one due soonest expires now. */
  private evict(): void {
    const slot = this.heap.peek();
    if (slot < 0) return;
    this.counters.evicted++;
    this.expire(slot, this.clock.now, true);
  }

  /**
   * End of input (`flowagg pipeline`): every flow goes, in expiry order, exported when it has new data
   * (a waiting half as uncorrelated, per the policy). Stops early, returning false, at `budget` pending.
   */
  flush(budget = Infinity): boolean {
    for (;;) {
      const slot = this.heap.peek();
      if (slot < 0) return true;
      if (this.pending >= budget) return false;
      this.expire(slot, this.clock.now, true);
    }
  }

  /** The output records since the last call. */
  takeOutputs(): ProduceRecord[] {
    const out = this.outputs;
    this.outputs = [];
    return out;
  }

  /**
   * Appends a checkpoint to `out` (its partition of processor.state): what changed since the last one,
   * tombstones first, then one stats and one identity record per flow whose part changed (a flow deleted
   * and created again in between ends with its new state), the clock's sources that changed (a forgotten
   * one as a tombstone), then the watermark record, which holds `inputOffset`, the input offset committed
   * with it, and the progress record.
   */
  takeCheckpoint(out: ChangelogRecords, inputOffset: number): void {
    for (const key of this.tombstones) out.push(key, null);
    this.tombstones = [];
    const clock = this.clock.takeChanges();
    for (const id of clock.forgotten) out.push(sourceKey(id), null);
    for (const s of clock.changed) out.push(sourceKey(s.id), encodeSource(s.eventTime, s.receivedAt));
    const { store } = this;
    for (const slot of store.takeDirty()) {
      const at = slot * U_WIDTH + U_DIRTY;
      const bits = store.u8[at]!;
      if (bits === 0) continue;
      store.u8[at] = 0;
      const key = store.keys[slot]!;
      if (bits & DIRTY_STATS) this.pushFlowRecord(out, key, false, slot);
      if (bits & DIRTY_IDENTITY) this.pushFlowRecord(out, key, true, slot);
    }
    const checkpoint: Checkpoint = { watermark: this.clock.now, received: this.clock.received, nextSeq: this.nextSeq, inputOffset, outputs: this.emitted };
    out.push(WATERMARK_KEY, encodeWatermark(checkpoint));
    this.takeProgress(out, inputOffset);
  }

  /** A flow's stats or identity record, encoded into the changelog's buffer, where `out` keeps its ranges. */
  private pushFlowRecord(out: ChangelogRecords, flowKey: string, identity: boolean, slot: number): void {
    const b = this.changelogBuffer;
    const keyStart = encodeKey(flowKey, identity, b);
    // The value may start a new chunk of the buffer: the key stays where it was written.
    const keyChunk = b.buf;
    const keyEnd = b.pos;
    const valueStart = identity ? encodeIdentity(this.store, slot, b) : encodeStats(this.store, slot, b);
    out.pushRange(keyChunk, keyStart, keyEnd, b.buf, valueStart, b.pos);
  }

  /** Appends the progress record of a commit at `inputOffset` to `out`: every output made so far is committed with it or before. */
  takeProgress(out: ChangelogRecords, inputOffset: number): void {
    out.push(PROGRESS_KEY, encodeProgress({ inputOffset, outputs: Math.max(this.emitted, this.committedOutputs) }));
  }

  /**
   * Forgets every flow, exporting nothing: their tombstones go out with the next changelog. For a state
   * that belongs to other input offsets than the group's (the offsets were reset: a replay starts empty).
   */
  discard(): void {
    const { store } = this;
    for (const slot of [...store.slots()]) this.forget(slot);
    this.clock.reset();
    this.nextSeq = 0;
    this.emitted = 0;
    this.committedOutputs = 0;
  }

  /**
   * After a restore filled the store and the clock's sources: the checkpoint's times, sequence and output
   * count back, every flow queued again, nothing dirty. Outputs below `committedOutputs` (the input after
   * the checkpoint, read again) are dropped: they were committed before.
   */
  restored(checkpoint: Omit<Checkpoint, 'inputOffset'>, committedOutputs: number): void {
    const { watermark } = checkpoint;
    this.clock.restored(watermark, checkpoint.received);
    this.nextSeq = checkpoint.nextSeq;
    this.emitted = checkpoint.outputs;
    this.committedOutputs = committedOutputs;
    const { store } = this;
    for (const slot of store.slots()) {
      store.u8[slot * U_WIDTH + U_DIRTY] = 0;
      this.schedule(slot, watermark);
    }
    store.takeDirty();
  }
}
