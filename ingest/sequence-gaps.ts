// Records lost in transit, from IPFIX sequence numbers (RFC 7011 §3.1): a message's sequence number is
// the count, modulo 2^32, of data records the exporter sent in this stream and observation domain
// before the message. So the next message should carry `sequence + data records in this message`;
// more means records were lost, less means a late (reordered) message or an exporter that restarted.
// Some exporters (softflowd 1.1.0) count differently: the message's own flow records are included, and
// options records are not counted at all. A stream whose second message is numbered exactly `previous +
// its own flow records` is switched to that convention, once, and judged by it from then on.
// Pure: the caller turns verdicts into metrics and forgets a stream when its session ends. The number of
// streams is bounded (maxStreams): beyond, the least recently active stream is forgotten (and starts afresh,
// with no verdict, if it comes back), since any sender can open streams by varying the observation domain.

export type SequenceVerdict =
  /** The first message of a stream, or the first after one whose record count was unknown. */
  | { readonly kind: 'start' }
  | { readonly kind: 'in-order' }
  /** `lost` records were skipped over: sent by the exporter, never received here. */
  | { readonly kind: 'gap'; readonly lost: number }
  /** A message older than expected, within the reorder window: its records were counted lost by an earlier gap. */
  | { readonly kind: 'late'; readonly records: number }
  /** A jump too far either way to be loss or reordering: the exporter restarted its counter. */
  | { readonly kind: 'reset' };

export interface SequenceOptions {
  /** How far behind the expected number a message may be and still count as reordered. */
  readonly reorderWindow?: number;
  /** A forward jump larger than this is a counter reset, not loss. */
  readonly maxGap?: number;
  /** Streams tracked at most. */
  readonly maxStreams?: number;
}

import { LruMap } from '../lib/lru-map.js';

const MOD = 2 ** 32;

interface StreamState {
  readonly session: string;
  readonly domain: number;
  /** Records sent before the next message (undefined: unknown). */
  expected: number | undefined;
  /** The sequence number of the previous message. */
  last: number;
  /** The exporter's sequence numbers include the message's own records. */
  inclusive: boolean;
  /** Messages judged against a known expectation; the convention is settled at the first. */
  judged: number;
}

export class SequenceTracker {
  /** Stream state by session and domain, least recently active first. */
  readonly #streams = new LruMap<string, StreamState>();
  /** The domains of each session, so that its streams can be forgotten together. */
  readonly #domains = new Map<string, Set<number>>();
  readonly #reorderWindow: number;
  readonly #maxGap: number;
  readonly #maxStreams: number;
  /** Streams forgotten to keep the bound. */
  evicted = 0;

  constructor(opts: SequenceOptions = {}) {
    this.#reorderWindow = opts.reorderWindow ?? 65_536;
    this.#maxGap = opts.maxGap ?? 2 ** 24;
    this.#maxStreams = opts.maxStreams ?? 65_536;
  }

  /**
   * Accounts one message with `dataRecords` flow records and `optionsRecords` options data records.
   * `dataRecords` is undefined when part of the message could not be decoded (a data set for a template
   * not known yet), so its record count is unknown and the next message starts afresh.
   */
  observe(session: string, domain: number, sequence: number, dataRecords: number | undefined, optionsRecords = 0): SequenceVerdict {
    const key = `${session}\u0000${domain}`;
    let state = this.#streams.get(key);
    if (state === undefined) {
      if (this.#streams.size >= this.#maxStreams) this.#evictOldest();
      state = { session, domain, expected: undefined, last: 0, inclusive: false, judged: 0 };
      let domains = this.#domains.get(session);
      if (domains === undefined) this.#domains.set(session, (domains = new Set()));
      domains.add(domain);
    }
    this.#streams.set(key, state);
    const flows = dataRecords ?? 0;
    // The records sent before this message, and those in it, in the convention the exporter follows.
    let before = state.inclusive ? (sequence - flows + MOD) % MOD : sequence;
    let counted = state.inclusive ? flows : flows + optionsRecords;
    let verdict = judge(state.expected, before, counted, this.#reorderWindow, this.#maxGap);
    if (verdict.kind !== 'in-order' && verdict.kind !== 'start' && state.judged === 0 && dataRecords !== undefined && (sequence - state.last + MOD) % MOD === flows) {
      state.inclusive = true;
      before = (sequence - flows + MOD) % MOD;
      counted = flows;
      verdict = { kind: 'in-order' };
    }
    if (state.expected !== undefined) state.judged++;
    state.last = sequence;
    if (dataRecords === undefined) state.expected = undefined;
    else if (verdict.kind !== 'late') state.expected = (before + counted) % MOD;
    return verdict;
  }

  /** Drops a session's streams (its connection closed, or it expired). */
  forget(session: string): void {
    for (const domain of this.#domains.get(session) ?? []) this.#streams.delete(`${session}\u0000${domain}`);
    this.#domains.delete(session);
  }

  get streams(): number {
    return this.#streams.size;
  }

  #evictOldest(): void {
    const oldest = this.#streams.shift()![1];
    const domains = this.#domains.get(oldest.session)!;
    domains.delete(oldest.domain);
    if (domains.size === 0) this.#domains.delete(oldest.session);
    this.evicted++;
  }
}

function judge(expected: number | undefined, sequence: number, records: number, reorderWindow: number, maxGap: number): SequenceVerdict {
  if (expected === undefined) return { kind: 'start' };
  const ahead = (sequence - expected + MOD) % MOD;
  if (ahead === 0) return { kind: 'in-order' };
  if (ahead < MOD / 2) return ahead <= maxGap ? { kind: 'gap', lost: ahead } : { kind: 'reset' };
  const behind = MOD - ahead;
  return behind <= reorderWindow ? { kind: 'late', records } : { kind: 'reset' };
}
