// The bounded queue between decoding and the message log, and the point where backpressure starts.
// Records wait here in batches until producer.send resolves (durable in the log). The queue counts
// both records waiting and records in flight, since both are held in memory; once either bound is
// reached the queue is `throttled`: stream sessions stop reading their sockets and UDP datagrams are
// dropped, until the log catches up to half the bounds ('drain'). A failed send is retried with backoff,
// whatever the error, since records accepted from an exporter exist nowhere else: an outage, a
// misconfiguration or a bug in the log must delay them, not lose them, and the full queue pushes back on
// the exporters meanwhile. Only a batch the log refuses for what it holds is dropped, and counted, and a
// batch of clock ticks alone, which the next tick replaces.
import { EventEmitter } from 'node:events';
import { isFlowaggError } from '../lib/errors.js';
import { Backoff, sleep } from '../lib/retry.js';
import { LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED, LOG_RECORD_REJECTED } from '../lib/log/errors.js';
import type { ProduceRecord, Producer, RecordRun } from '../lib/log/types.js';
import { RunChunks } from './records/run-chunks.js';
import { RunWriter, type WrittenRuns } from './records/run-writer.js';

export interface ProduceQueueOptions {
  readonly topic: string;
  readonly maxRecords: number;
  readonly maxBytes: number;
  readonly batchRecords: number;
  readonly lingerMs: number;
  readonly maxInFlightBatches: number;
  /** Bounds of the retry backoff after a failed send. */
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
}

/** `records` count the records with a value: clock ticks (schemas/clock-tick.ts) travel along uncounted. */
export interface ProduceQueueHooks {
  sent?(records: number, seconds: number): void;
  failed?(err: unknown, records: number, retrying: boolean): void;
}

export interface ProduceQueueStats {
  readonly queuedRecords: number;
  readonly queuedBytes: number;
  readonly inFlightBatches: number;
  readonly throttled: boolean;
}

/** What a record costs the queue's byte bound, besides its key and value. */
const RECORD_BYTES = 32;

/** What one record costs the queue's byte bound. */
export function recordBytes(r: ProduceRecord): number {
  return (r.key?.length ?? 0) + (r.value?.length ?? 0) + RECORD_BYTES;
}

/**
 * One send: ingest's flows in runs, or records (clock ticks); a batch holds one kind, in the order enqueued,
 * and the next of the other kind starts a new batch, so the log gets everything in that order.
 */
type Batch = ({ kind: 'runs'; runs: RecordRun[] } | { kind: 'records'; records: ProduceRecord[] }) & {
  count: number;
  bytes: number;
  /** Records with a value. */
  values: number;
};

const emptyBatch = (): Batch => ({ kind: 'runs', runs: [], count: 0, bytes: 0, values: 0 });

export class ProduceQueue extends EventEmitter<{ drain: []; idle: [] }> {
  readonly #producer: Producer;
  readonly #opts: Required<ProduceQueueOptions>;
  readonly #hooks: ProduceQueueHooks;
  /** The chunks of the runs enqueued, reused once the log has a batch's records. */
  readonly #chunks = new RunChunks();
  /** Full batches waiting for an in-flight slot, oldest first. */
  readonly #ready: Batch[] = [];
  /** The batch being filled. */
  #filling: Batch = emptyBatch();
  #queuedRecords = 0;
  #queuedBytes = 0;
  #inFlight = 0;
  #throttled = false;
  #linger: NodeJS.Timeout | undefined;
  /** The linger time of the batch being filled has passed: send it at the next free slot. */
  #lingerExpired = false;
  #flushing = false;
  #abandoned = false;

  constructor(producer: Producer, opts: ProduceQueueOptions, hooks: ProduceQueueHooks = {}) {
    super();
    this.#producer = producer;
    this.#opts = { retryMinMs: 50, retryMaxMs: 5000, ...opts };
    this.#hooks = hooks;
  }

  /** A writer of runs for enqueueRuns, whose chunks the queue reuses once their records are sent. */
  runWriter(): RunWriter {
    return new RunWriter(this.#chunks);
  }

  /** True from the moment a bound is reached until the queue has drained to half of it. */
  get throttled(): boolean {
    return this.#throttled;
  }

  stats(): ProduceQueueStats {
    return { queuedRecords: this.#queuedRecords, queuedBytes: this.#queuedBytes, inFlightBatches: this.#inFlight, throttled: this.#throttled };
  }

  /**
   * Takes the records of one message. It always accepts them: callers check `throttled` first (UDP drops,
   * streams pause after this message), so the bounds are overshot by at most one message per session (the
   * gRPC collector queues its streams' flows once per turn of the event loop: one turn's messages).
   */
  enqueue(records: readonly ProduceRecord[]): void {
    if (records.length === 0 || this.#abandoned) return;
    for (const r of records) {
      const batch = this.#fillingOf('records');
      const bytes = recordBytes(r);
      batch.records.push(r);
      if (r.value !== null) batch.values++;
      this.#added(batch, 1, bytes);
    }
    this.#queued();
  }

  /** Takes the flows of one message, as enqueue does records. */
  enqueueRuns(written: WrittenRuns): void {
    if (written.records === 0 || this.#abandoned) return;
    const batch = this.#fillingOf('runs');
    batch.runs.push(...written.runs);
    batch.values += written.records;
    this.#added(batch, written.records, written.bytes + RECORD_BYTES * written.records);
    this.#queued();
  }

  /** The batch being filled, when it is of this kind; else a new one, the other one made ready. */
  #fillingOf<K extends Batch['kind']>(kind: K): Extract<Batch, { kind: K }> {
    if (this.#filling.kind !== kind) {
      if (this.#filling.count > 0) this.#ready.push(this.#filling);
      this.#filling = kind === 'runs' ? emptyBatch() : { kind: 'records', records: [], count: 0, bytes: 0, values: 0 };
    }
    return this.#filling as Extract<Batch, { kind: K }>;
  }

  #added(batch: Batch, count: number, bytes: number): void {
    batch.count += count;
    batch.bytes += bytes;
    this.#queuedRecords += count;
    this.#queuedBytes += bytes;
    if (batch.count >= this.#opts.batchRecords) {
      this.#ready.push(batch);
      this.#filling = emptyBatch();
    }
  }

  #queued(): void {
    if (this.#queuedRecords >= this.#opts.maxRecords || this.#queuedBytes >= this.#opts.maxBytes) this.#throttled = true;
    this.#pump();
  }

  /** Sends everything queued now, and resolves true when nothing is queued or in flight, false at the deadline. */
  async flush(deadlineMs = Infinity): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    this.#flushing = true;
    this.#pump();
    while (this.#queuedRecords > 0) {
      const left = until - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      let onIdle = () => {};
      await new Promise<void>((resolve) => {
        onIdle = resolve;
        this.once('idle', onIdle);
        if (Number.isFinite(left)) timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      this.off('idle', onIdle);
    }
    return true;
  }

  /** Gives up on what is still queued (after flush missed its deadline): no more sends or retries. Returns the records given up. */
  abandon(): number {
    this.#abandoned = true;
    if (this.#linger !== undefined) clearTimeout(this.#linger);
    this.#linger = undefined;
    for (const batch of [...this.#ready.splice(0), this.#filling]) this.#done(batch);
    this.#filling = emptyBatch();
    return this.#queuedRecords;
  }

  /** The batch was sent or given up: the chunks of its runs may be written again. */
  #done(batch: Batch): void {
    if (batch.kind === 'runs') this.#chunks.release(batch.runs);
  }

  /** Starts sends while slots are free: full batches at once, a partial one after the linger time. */
  #pump(): void {
    while (this.#inFlight < this.#opts.maxInFlightBatches) {
      const batch = this.#ready.shift() ?? this.#takePartial();
      if (batch === undefined) break;
      this.#inFlight++;
      void this.#send(batch);
    }
    if (this.#filling.count > 0 && this.#linger === undefined && !this.#abandoned) {
      this.#linger = setTimeout(() => {
        this.#linger = undefined;
        this.#lingerExpired = true;
        this.#pump();
      }, this.#opts.lingerMs);
    }
  }

  #takePartial(): Batch | undefined {
    if (this.#filling.count === 0 || !(this.#flushing || this.#lingerExpired)) return undefined;
    this.#lingerExpired = false;
    const batch = this.#filling;
    this.#filling = emptyBatch();
    return batch;
  }

  async #send(batch: Batch): Promise<void> {
    const backoff = new Backoff({ initialMs: this.#opts.retryMinMs, maxMs: this.#opts.retryMaxMs });
    for (;;) {
      const start = performance.now();
      try {
        if (batch.kind === 'runs') await this.#producer.sendRuns(this.#opts.topic, batch.runs);
        else await this.#producer.send(this.#opts.topic, batch.records);
        this.#hooks.sent?.(batch.values, (performance.now() - start) / 1000);
        break;
      } catch (err) {
        // A batch of clock ticks alone is not worth a retry: the next tick says more than this one.
        const retrying = batch.values > 0 && !isUnwritable(err) && !this.#abandoned;
        this.#hooks.failed?.(err, batch.values, retrying);
        if (!retrying) break;
        await sleep(backoff.next());
      }
    }
    this.#done(batch);
    this.#inFlight--;
    this.#queuedRecords -= batch.count;
    this.#queuedBytes -= batch.bytes;
    if (this.#throttled && this.#queuedRecords <= this.#opts.maxRecords / 2 && this.#queuedBytes <= this.#opts.maxBytes / 2) {
      this.#throttled = false;
      this.emit('drain');
    }
    if (!this.#abandoned) this.#pump();
    if (this.#queuedRecords === 0) this.emit('idle');
  }
}

/** Errors about the records themselves: sending them again cannot succeed. */
const UNWRITABLE = new Set<string>([LOG_INVALID_ARGUMENT, LOG_KEY_REQUIRED, LOG_RECORD_REJECTED]);

function isUnwritable(err: unknown): boolean {
  return isFlowaggError(err) && UNWRITABLE.has(err.code);
}
