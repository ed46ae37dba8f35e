// The explorer's memory: flows.processed folded into time buckets, in tiers (10 s buckets over the last
// 15 min, 1 min over the last 90 min, 15 min over the whole horizon), each bucket holding its totals and one top-K sketch
// (top-k.ts) per dimension the views ask for. Pure: time comes in as arguments.
//
// The memory ceiling holds by construction: every sketch of every bucket that can exist at once gets an
// equal share of `maxMemoryBytes` (weighted by dimension), and a sketch never holds more than its share;
// the totals and the bucket objects themselves are counted in BUCKET_OVERHEAD_BYTES. A flood of distinct
// flows therefore costs accuracy (the sketches' error grows), never memory.
import type { FlowFacts } from './flow-facts.js';
import { TopK } from './top-k.js';

/** Each dimension's key, and its share of a bucket's memory. */
export const DIMENSIONS = {
  /** Source namespace: the Overview's stacks. */
  namespace: 1,
  /** The Node that reported the source side. */
  node: 1,
  /** `ns/pod\tns/pod`: top talkers, and the graph expanded to Pods. */
  podPair: 4,
  /** `ns/workload\tns/workload`: the graph expanded to workloads. */
  workloadPair: 2,
  /** `ns\tns`: top talkers, and the graph. */
  namespacePair: 1,
  /** `ns/name:port` of the destination Service. */
  service: 1,
  /** Destination address of flows leaving the cluster. */
  external: 1,
  /** `direction\tpolicy\trule\taction` of denied flows. */
  policy: 1,
  /** Namespace of the Pods whose flows were denied. */
  deniedNamespace: 0.5,
} as const;

export type Dimension = keyof typeof DIMENSIONS;
export const DIMENSION_NAMES = Object.keys(DIMENSIONS) as Dimension[];
const WEIGHT_SUM = DIMENSION_NAMES.reduce((n, d) => n + DIMENSIONS[d], 0);

/** A bucket's object, its totals and its sketches' own objects (an estimate above what Node 20 uses). */
export const BUCKET_OVERHEAD_BYTES = 2048;

export const SEPARATOR = '\t';

export interface Totals {
  bytes: number;
  packets: number;
  records: number;
  deniedBytes: number;
  deniedPackets: number;
  deniedRecords: number;
}

export interface Bucket {
  /** ms since the epoch; the bucket covers [start, start + bucketMs). */
  readonly start: number;
  readonly totals: Totals;
  readonly top: Readonly<Record<Dimension, TopK>>;
}

export interface TierSpec {
  readonly bucketMs: number;
  readonly horizonMs: number;
}

export interface RollupOptions {
  readonly tiers: readonly TierSpec[];
  readonly maxMemoryBytes: number;
}

/**
 * The tiers the explorer keeps: 10 s buckets over the last 15 min, 1 min over 90 min, 15 min over the
 * horizon. Each range the page offers (5 min to 24 h) is answered from at most MAX_QUERY_BUCKETS buckets,
 * and no tier keeps buckets no such range uses, so that the memory goes to the keys of the buckets used.
 */
export function defaultTiers(horizonMs: number): TierSpec[] {
  return [{ bucketMs: 10_000, horizonMs: Math.min(horizonMs, 900_000) }, { bucketMs: 60_000, horizonMs: Math.min(horizonMs, 5_400_000) }, { bucketMs: 900_000, horizonMs }];
}

/** A query merges at most this many buckets when a tier allows: what keeps a call within its time (bench/explorer.bench.ts). */
export const MAX_QUERY_BUCKETS = 96;

const endpointKey = (e: FlowFacts['source']) => `${e.namespace}/${e.pod}`;

/** The key of each dimension for a record; absent dimensions have no key. */
export function dimensionKeys(f: FlowFacts): Partial<Record<Dimension, string>> {
  const keys: Partial<Record<Dimension, string>> = {
    namespace: f.source.namespace,
    podPair: endpointKey(f.source) + SEPARATOR + endpointKey(f.destination),
    workloadPair: `${f.source.namespace}/${f.source.workload}${SEPARATOR}${f.destination.namespace}/${f.destination.workload}`,
    namespacePair: f.source.namespace + SEPARATOR + f.destination.namespace,
  };
  if (f.node !== '') keys.node = f.node;
  if (f.service !== '') keys.service = f.service;
  if (f.external !== '') keys.external = f.external;
  if (f.denial !== undefined) {
    const d = f.denial;
    keys.policy = [d.direction, d.policy, d.rule, d.action].join(SEPARATOR);
    keys.deniedNamespace = d.namespace;
  }
  return keys;
}

/** Buckets a tier can hold at once: the horizon's, the one being filled, one for a clock a little ahead. */
export const tierCapacity = (spec: TierSpec) => Math.ceil(spec.horizonMs / spec.bucketMs) + 2;

/** Buckets of one size, newest `horizonMs` of them kept. */
export class Tier {
  readonly #buckets = new Map<number, Bucket>();

  constructor(
    readonly spec: TierSpec,
    private readonly sketchBudget: (d: Dimension) => number,
  ) {}

  get size(): number {
    return this.#buckets.size;
  }

  /** The oldest time this tier keeps at `now`. */
  oldest(now: number): number {
    return this.#startOf(now) - this.spec.horizonMs;
  }

  #startOf(t: number): number {
    return Math.floor(t / this.spec.bucketMs) * this.spec.bucketMs;
  }

  /** False when `f` is older than the horizon, or further ahead than one bucket (a clock far off). */
  add(f: FlowFacts, keys: Partial<Record<Dimension, string>>, now: number): boolean {
    if (f.time < this.oldest(now) || f.time >= this.#startOf(now) + 2 * this.spec.bucketMs) return false;
    const start = this.#startOf(f.time);
    let b = this.#buckets.get(start);
    if (b === undefined) {
      this.evict(now);
      const top = Object.fromEntries(DIMENSION_NAMES.map((d) => [d, new TopK(this.sketchBudget(d))])) as Record<Dimension, TopK>;
      b = { start, totals: { bytes: 0, packets: 0, records: 0, deniedBytes: 0, deniedPackets: 0, deniedRecords: 0 }, top };
      this.#buckets.set(start, b);
    }
    const t = b.totals;
    t.bytes += f.bytes;
    t.packets += f.packets;
    t.records++;
    if (f.denial !== undefined) {
      t.deniedBytes += f.bytes;
      t.deniedPackets += f.packets;
      t.deniedRecords++;
    }
    for (const d of DIMENSION_NAMES) {
      const key = keys[d];
      if (key !== undefined) b.top[d].add(key, f.bytes, f.packets, 1);
    }
    return true;
  }

  evict(now: number): void {
    const oldest = this.oldest(now);
    for (const start of this.#buckets.keys()) if (start < oldest) this.#buckets.delete(start);
  }

  /** The buckets overlapping [from, to), oldest first. */
  range(from: number, to: number): Bucket[] {
    return [...this.#buckets.values()].filter((b) => b.start + this.spec.bucketMs > from && b.start < to).sort((a, b) => a.start - b.start);
  }

  memoryBytes(): number {
    let n = 0;
    for (const b of this.#buckets.values()) {
      n += BUCKET_OVERHEAD_BYTES;
      for (const d of DIMENSION_NAMES) n += b.top[d].bytes;
    }
    return n;
  }
}

export class Rollups {
  readonly tiers: readonly Tier[];
  /** Records older than every tier's horizon (a replay from further back), or far ahead of the clock. */
  outside = 0;

  constructor(readonly options: RollupOptions) {
    const buckets = options.tiers.reduce((n, t) => n + tierCapacity(t), 0);
    const perBucket = options.maxMemoryBytes / buckets - BUCKET_OVERHEAD_BYTES;
    if (perBucket < 16 * 1024) {
      throw new RangeError(`a memory ceiling of ${options.maxMemoryBytes} bytes leaves ${Math.floor(perBucket)} bytes to each of ${buckets} buckets; at least 16 KiB each is needed`);
    }
    const budget = (d: Dimension) => Math.floor((perBucket * DIMENSIONS[d]) / WEIGHT_SUM);
    this.tiers = options.tiers.map((spec) => new Tier(spec, budget));
  }

  add(f: FlowFacts, now: number): void {
    const keys = dimensionKeys(f);
    let added = false;
    for (const tier of this.tiers) added = tier.add(f, keys, now) || added;
    if (!added) this.outside++;
  }

  evict(now: number): void {
    for (const tier of this.tiers) tier.evict(now);
  }

  /** The finest tier that holds `from` and answers [from, to) from at most MAX_QUERY_BUCKETS buckets; else the coarsest. */
  tierFor(from: number, to: number, now: number): Tier {
    return this.tiers.find((t) => from >= t.oldest(now) && (to - from) / t.spec.bucketMs <= MAX_QUERY_BUCKETS) ?? this.tiers[this.tiers.length - 1]!;
  }

  memoryBytes(): number {
    return this.tiers.reduce((n, t) => n + t.memoryBytes(), 0);
  }
}
