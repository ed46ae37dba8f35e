// The aggregation of one input partition: its flow store, its expiry queue and its event-time
// watermark, fed record by record, writing output records and, on demand, the changelog of what changed.
// Pure: no I/O and no clock; time is the records' event time, so the same records give the same outputs
// (and the same changelog) whatever the batching, the commits and the restarts in between.
//
// Per record (reference §5.5, §5.6, Antrea's "(B)" behaviour):
//   1. the watermark moves to the record's event time (never back); every flow due by then expires first;
//   2. the record creates its flow, correlates it (the other Node's half) or aggregates into it.
// Expiry of a flow (its active or inactive deadline passed):
//   - a half still waiting for its peer spends one retry; past the budget it is exported alone
//     (`uncorrelated: export`) or dropped (`drop`, Antrea's behaviour);
//   - an exportable flow with new data is exported (deltas and throughputs reset after);
//   - past its inactive deadline the flow is deleted, else its next active deadline is set.
import { type ProduceRecord } from '../../lib/log/types.js';
import { RecordBuffer } from '../../ingest/records/record-buffer.js';
import { type ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { type MetadataOptions } from '../metadata-fill.js';
import { FLOW_TYPE_INTER_NODE, flowKeyString, isDenied, isFromSourceNode, needsCorrelation, R } from '../record-input.js';
import { encodeIdentity, encodeKey, encodeStats, encodeWatermark, identityKey, WATERMARK_KEY } from './changelog.js';
import {
  DIRTY_IDENTITY, DIRTY_STATS, F_ACTIVE, F_INACTIVE, F_SEQ, F_WIDTH, I_EXPORTS, I_WIDTH, SIDE_DESTINATION, SIDE_SOURCE, U_BASE_SIDE, U_DIRTY,
  U_EGRESS_ACTION, U_FLOW_TYPE, U_INGRESS_ACTION, U_LIFECYCLE, U_RETRIES, U_WIDTH,
} from './columns.js';
import { decorateFlow } from './decorate.js';
import { ExpiryHeap } from './expiry-heap.js';
import { keyBuffer } from './flow-key-text.js';
import {
  awaitsPeer, hasNewData, LONE_EXPORTED, LONE_PENDING, ON_EXPORTED, ON_GAVE_UP, ON_PEER, ON_RECORD, PENDING, transition, WAITING,
} from './lifecycle.js';
import { type OutputEncoder } from './output.js';
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
}

export interface AggregatorCounters {
  /** Records aggregated (stale ones included). */
  records: number;
  /** Records ignored as not newer than the previous one from the same Node. */
  stale: number;
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
    records: 0, stale: 0, missingTimes: 0, created: 0, correlated: 0, exported: 0, uncorrelatedExported: 0, uncorrelatedDropped: 0, evicted: 0, deleted: 0,
  };
  /** Event time (ms) of the partition: the latest record's, or where an idle advance moved it. */
  watermark = 0;
  private readonly heap: ExpiryHeap;
  private nextSeq = 0;
  private outputs: ProduceRecord[] = [];
  private tombstones: Buffer[] = [];
  private readonly outputBuffer = new RecordBuffer();
  private readonly changelogBuffer = new RecordBuffer();

  constructor(
    private readonly settings: AggregatorSettings,
    private readonly encode: OutputEncoder,
    private readonly metadata: MetadataOptions,
    store = new FlowStore(),
  ) {
    this.store = store;
    this.heap = new ExpiryHeap(store.capacity);
    store.onGrow = (capacity) => this.heap.grow(capacity);
  }

  /** Output records, changelog records and tombstones waiting for the next commit. */
  get pending(): number {
    return this.outputs.length + this.tombstones.length + this.store.dirtyCount;
  }

  get flows(): number {
    return this.store.size;
  }

  /** Moves the watermark to `t` if later (a record's event time, or the clock of an idle partition). */
  advanceTo(t: number): void {
    if (t > this.watermark) this.watermark = t;
  }

  /** Expires every flow due by the watermark; stops early, returning false, once `budget` records are pending. */
  expireDue(budget = Infinity): boolean {
    const w = this.watermark;
    for (;;) {
      const slot = this.heap.peek();
      if (slot < 0 || this.heap.peekDeadline() > w) return true;
      if (this.pending >= budget) return false;
      this.expire(slot, w, false);
    }
  }

  /** Feeds one record without a budget: advance, expire, add. */
  process(r: ScannedRecord, time: number): void {
    this.advanceTo(time);
    this.expireDue();
    this.add(r);
  }

  /** Aggregates one record; the caller has advanced the watermark to its time and expired what was due. */
  add(r: ScannedRecord): void {
    const start = r.num[R.flowStart]!;
    const end = r.num[R.flowEnd]!;
    if (start !== start || end !== end) {
      this.counters.missingTimes++;
      return;
    }
    this.counters.records++;
    const key = flowKeyString(r);
    const correlation = needsCorrelation(r);
    const side = isFromSourceNode(r) ? SIDE_SOURCE : SIDE_DESTINATION;
    const own = correlation ? (side === SIDE_SOURCE ? SOURCE_ONLY : DESTINATION_ONLY) : BOTH_SIDES;
    const { store, settings } = this;
    const w = this.watermark;
    let slot = store.slotOf(key);
    const created = slot < 0;
    if (created) {
      if (store.size >= settings.maxFlows) this.evict();
      slot = store.add(key);
    }
    // Read after add(), which may have grown (replaced) the store's arrays.
    const f = store.f64;
    const u8 = store.u8;
    if (created) {
      createFlow(store, slot, r, own);
      const u = slot * U_WIDTH;
      u8[u + U_LIFECYCLE] = correlation ? WAITING : PENDING;
      u8[u + U_BASE_SIDE] = side;
      const at = slot * F_WIDTH;
      f[at + F_SEQ] = this.nextSeq++;
      f[at + F_INACTIVE] = w + settings.inactiveMs;
      f[at + F_ACTIVE] = w + (correlation ? settings.activeMs : settings.exportDelayMs);
      this.counters.created++;
    } else {
      const u = slot * U_WIDTH;
      const state = u8[u + U_LIFECYCLE]!;
      const peer = correlation && awaitsPeer(state) && u8[u + U_BASE_SIDE] !== side;
      if (peer) {
        correlate(store, slot, r);
        this.counters.correlated++;
      }
      const fresh = aggregate(store, slot, r, own);
      if (!fresh) this.counters.stale++;
      if (peer || fresh) u8[u + U_LIFECYCLE] = transition(state, peer ? ON_PEER : ON_RECORD);
      const at = slot * F_WIDTH;
      f[at + F_INACTIVE] = w + settings.inactiveMs;
      if (peer) f[at + F_ACTIVE] = w + settings.exportDelayMs;
      store.markDirty(slot, DIRTY_STATS);
    }
    this.schedule(slot);
  }

  private schedule(slot: number): void {
    const at = slot * F_WIDTH;
    const f = this.store.f64;
    this.heap.set(slot, Math.min(f[at + F_ACTIVE]!, f[at + F_INACTIVE]!), f[at + F_SEQ]!);
  }

  /** Expires one flow due by `w`; `forced` (eviction, end of input) gives up waiting, exports and deletes now. */
  private expire(slot: number, w: number, forced: boolean): void {
    const { store, settings } = this;
    const u = slot * U_WIDTH;
    const at = slot * F_WIDTH;
    const f = store.f64;
    if (store.u8[u + U_LIFECYCLE] === WAITING) {
      const retries = ++store.u8[u + U_RETRIES]!;
      if (!forced && retries <= settings.correlationRetries) {
        f[at + F_ACTIVE] = w + settings.activeMs;
        f[at + F_INACTIVE] = w + settings.inactiveMs;
        store.markDirty(slot, DIRTY_STATS);
        this.schedule(slot);
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
    if (forced || f[at + F_INACTIVE]! <= w) {
      this.delete(slot);
      return;
    }
    if (f[at + F_ACTIVE]! <= w) f[at + F_ACTIVE] = w + settings.activeMs;
    store.markDirty(slot, DIRTY_STATS);
    this.schedule(slot);
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
    this.outputs.push({ key: keyBuffer(store.keys[slot]!), value: this.outputBuffer.value() });
    store.i32[i + I_EXPORTS]!++;
    resetAfterExport(store, slot);
    store.u8[u + U_LIFECYCLE] = transition(state, ON_EXPORTED);
    this.counters.exported++;
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
    this.expire(slot, this.watermark, true);
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
      this.expire(slot, this.watermark, true);
    }
  }

  /** The output records since the last call. */
  takeOutputs(): ProduceRecord[] {
    const out = this.outputs;
    this.outputs = [];
    return out;
  }

  /**
   * Appends the changelog since the last call to `out`, for partition `partition` of processor.state:
   * tombstones first, then one stats and one identity record per flow whose part changed (a flow deleted
   * and created again in between ends with its new state), then the watermark record, which also holds
   * `inputOffset`, the input offset committed with this changelog.
   */
  takeChangelog(out: ProduceRecord[], partition: number, inputOffset: number): void {
    for (const key of this.tombstones) out.push({ key, value: null, partition });
    this.tombstones = [];
    const { store } = this;
    for (const slot of store.takeDirty()) {
      const at = slot * U_WIDTH + U_DIRTY;
      const bits = store.u8[at]!;
      if (bits === 0) continue;
      store.u8[at] = 0;
      const key = store.keys[slot]!;
      const b = this.changelogBuffer;
      if (bits & DIRTY_STATS) out.push({ key: encodeKey(key, false, b), value: encodeStats(store, slot, b), partition });
      if (bits & DIRTY_IDENTITY) out.push({ key: encodeKey(key, true, b), value: encodeIdentity(store, slot, b), partition });
    }
    out.push({ key: WATERMARK_KEY, value: encodeWatermark(this.watermark, this.nextSeq, inputOffset), partition });
  }

  /**
   * Forgets every flow, exporting nothing: their tombstones go out with the next changelog. For a state
   * that belongs to other input offsets than the group's (the offsets were reset: a replay starts empty).
   */
  discard(): void {
    const { store } = this;
    for (const slot of [...store.slots()]) this.forget(slot);
    this.watermark = 0;
    this.nextSeq = 0;
  }

  /** After a restore filled the store: the watermark and sequence back, every flow queued again, nothing dirty. */
  restored(watermark: number, nextSeq: number): void {
    this.watermark = watermark;
    this.nextSeq = nextSeq;
    const { store } = this;
    for (const slot of store.slots()) {
      store.u8[slot * U_WIDTH + U_DIRTY] = 0;
      this.schedule(slot);
    }
    store.takeDirty();
  }
}
