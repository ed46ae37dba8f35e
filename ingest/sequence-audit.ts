// Records lost in transit, computed where all of an exporter's records meet. Behind a UDP load balancer each
// ingest replica sees only part of an exporter's stream, so no replica can tell a gap (records sent to another
// replica) from a loss; each replica therefore judges only the streams it sees whole (TCP and TLS sessions, and
// UDP when it is the only replica), and the loss across replicas is computed here, from flows.raw, where every
// replica writes every record with its exporter, observation domain and message sequence number.
//
// Records of one message reach flows.raw together but land in several partitions (they are keyed by flow), and
// partitions are read at different paces, so messages are first gathered: a message is judged once the audit has
// read every partition past its receive time (the watermark) by `settleMs`. Then each stream's messages go, in
// sequence order, through the same SequenceTracker the replicas use (so softflowd's numbering is recognised too),
// with the number of records of the message found in flows.raw as its record count.
//
// What it can and cannot see: records the exporter numbered but that are not in flows.raw count as lost, whether
// the network lost them or ingest skipped or dropped them (its own counters say which: skipped_sets_total,
// dropped_records_total); options data records, which RFC 7011 numbers but ingest does not write, count as lost
// for exporters that number them (softflowd and Antrea do not). Pure: the consumer (sequence-audit-consumer.ts)
// feeds it and turns its verdicts into metrics.
import { LruMap } from '../lib/lru-map.js';
import { SequenceTracker } from './sequence-gaps.js';

export interface AuditOptions {
  /** How long after the watermark has passed a message's receive time it is judged. */
  readonly settleMs: number;
  /** Streams (exporter address, port, transport, domain) followed at most; the least recently active is forgotten. */
  readonly maxStreams?: number;
  /** Messages gathered per stream at most; beyond, the stream is judged early. */
  readonly maxPending?: number;
}

/** What one judgement found for one exporter address. */
export interface AuditFinding {
  readonly exporter: string;
  readonly lost: number;
  readonly late: number;
  readonly resets: number;
}

interface Stream {
  readonly key: string;
  readonly exporter: string;
  readonly domain: number;
  /** Records found per message sequence number, and the message's receive time. */
  readonly pending: Map<number, { records: number; receiveTime: number }>;
  /** The sequence number judged last: messages are ordered relative to it (numbers wrap at 2^32). */
  base: number | undefined;
}

export class SequenceAudit {
  readonly #opts: Required<AuditOptions>;
  readonly #streams = new LruMap<string, Stream>();
  readonly #tracker: SequenceTracker;

  constructor(opts: AuditOptions) {
    this.#opts = { maxStreams: 65_536, maxPending: 4096, ...opts };
    this.#tracker = new SequenceTracker({ maxStreams: this.#opts.maxStreams });
  }

  get streams(): number {
    return this.#streams.size;
  }

  /** One record of flows.raw. `exporter` is its address; `session` tells its streams apart (address, port, transport). */
  add(exporter: string, session: string, domain: number, sequence: number, receiveTime: number): AuditFinding[] {
    const key = `${session}\u0000${domain}`;
    let stream = this.#streams.get(key);
    if (stream === undefined) {
      if (this.#streams.size >= this.#opts.maxStreams) this.#tracker.forget(this.#streams.shift()![0]);
      stream = { key, exporter, domain, pending: new Map(), base: undefined };
    }
    this.#streams.set(key, stream);
    const message = stream.pending.get(sequence);
    if (message === undefined) stream.pending.set(sequence, { records: 1, receiveTime });
    else message.records++;
    return stream.pending.size > this.#opts.maxPending ? this.#judge(stream, Infinity) : [];
  }

  /** Judges every message received before `watermark - settleMs`. */
  settle(watermark: number): AuditFinding[] {
    const findings: AuditFinding[] = [];
    for (const stream of this.#streams.values()) findings.push(...this.#judge(stream, watermark - this.#opts.settleMs));
    return findings;
  }

  #judge(stream: Stream, before: number): AuditFinding[] {
    const due: [number, number][] = [];
    for (const [sequence, m] of stream.pending) if (m.receiveTime < before) due.push([sequence, m.records]);
    if (due.length === 0) return [];
    const base = stream.base ?? circularStart(due.map(([s]) => s));
    due.sort(([a], [b]) => ((a - base) >>> 0) - ((b - base) >>> 0));
    const finding = { exporter: stream.exporter, lost: 0, late: 0, resets: 0 };
    for (const [sequence, records] of due) {
      stream.pending.delete(sequence);
      const verdict = this.#tracker.observe(stream.key, stream.domain, sequence, records);
      if (verdict.kind === 'gap') finding.lost += verdict.lost;
      else if (verdict.kind === 'late') finding.late += verdict.records;
      else if (verdict.kind === 'reset') finding.resets++;
    }
    stream.base = due.at(-1)![0];
    return finding.lost + finding.late + finding.resets > 0 ? [finding] : [];
  }
}

/** The first of sequence numbers on the 2^32 circle: the one after the widest gap between neighbours. */
function circularStart(sequences: number[]): number {
  const sorted = [...sequences].sort((a, b) => a - b);
  let start = sorted[0]!;
  let widest = sorted[0]! + 2 ** 32 - sorted.at(-1)!;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]! - sorted[i - 1]! > widest) {
      widest = sorted[i]! - sorted[i - 1]!;
      start = sorted[i]!;
    }
  }
  return start;
}
