// The consumers of a remote log (client.ts): each made here is a consumer on the owner's log, whose
// deliveries come back as the owner's calls, answered by this consumer's handlers. The owner awaits
// each answer, so one batch at a time per partition, backpressure and "a handler that throws gets the
// batch again" are the owner consumer's own. assignment() is answered here, from what the owner told, and
// so is whether a seek, pause or resume names an assigned partition: they are posted without an answer,
// and a seek the owner refused in silence had the processor position a partition the group had moved
// (a task left behind for it held its flows for good: chaos seed 498877).
import { FlowaggError } from '../../errors.js';
import { fromWire, type WireError } from '../../thread/wire-error.js';
import { LOG_CONSUMER_STATE, LOG_STALE_BATCH } from '../errors.js';
import type { Batch, Consumer, ConsumerConfig, ConsumerHandlers, LogRecord, TopicPartition } from '../types.js';
import { type PackedRecords, unpackBatchRecords, unpackLogRecords } from './packing.js';
import { type Handle, OWNER, SeekCounts } from './protocol.js';

type Call = (method: string, args: readonly unknown[]) => Promise<unknown>;

interface Entry {
  /** Records read in place (ConsumerConfig.valuesInPlace) or as plain LogRecords. */
  readonly unpack: (p: PackedRecords) => LogRecord[];
  handlers: ConsumerHandlers | undefined;
  assigned: TopicPartition[];
  /** Per partition, the seeks made here: each batch carries the ones the owner received. */
  readonly seeks: SeekCounts;
}

const same = (a: TopicPartition) => (b: TopicPartition) => a.topic === b.topic && a.partition === b.partition;

function checkAssigned(entry: Entry, method: string, tps: readonly TopicPartition[]): void {
  const missing = tps.find((tp) => !entry.assigned.some(same(tp)));
  if (missing !== undefined) {
    throw new FlowaggError(LOG_CONSUMER_STATE, `${method}(): ${missing.topic}-${missing.partition} is not assigned to this consumer`, { context: { topic: missing.topic, partition: missing.partition } });
  }
}

export class RemoteConsumers {
  readonly #entries = new Map<Handle, Entry>();

  constructor(private readonly call: Call) {}

  open(config: ConsumerConfig): Consumer {
    const entry: Entry = { unpack: config.valuesInPlace === true ? unpackBatchRecords : unpackLogRecords, handlers: undefined, assigned: [], seeks: new SeekCounts() };
    const handle = this.call(OWNER.consumer, [config]).then((h) => {
      this.#entries.set(h as Handle, entry);
      return h as Handle;
    });
    const call = async (method: string, ...args: unknown[]) => this.call(method, [await handle, ...args]) as Promise<void>;
    // Fire-and-forget in order; a failure has nobody to tell but the next awaited call, which fails the same way.
    const post = (method: string, ...args: unknown[]) => void call(method, ...args).catch(() => undefined);
    return {
      subscribe: (topics) => call(OWNER.subscribe, topics),
      run: (handlers) => {
        entry.handlers = handlers;
        return call(OWNER.run);
      },
      commit: (offsets) => call(OWNER.commitOffsets, offsets),
      seek: (target) => {
        checkAssigned(entry, 'seek', [target]);
        entry.seeks.count(target);
        post(OWNER.seek, target);
      },
      pause: (tps) => {
        checkAssigned(entry, 'pause', tps);
        post(OWNER.pause, tps);
      },
      resume: (tps) => {
        checkAssigned(entry, 'resume', tps);
        post(OWNER.resume, tps);
      },
      assignment: () => [...entry.assigned],
      stop: async () => {
        await call(OWNER.stop);
        this.#entries.delete(await handle);
      },
    };
  }

  readonly batch = async (h: Handle, batch: Omit<Batch, 'records'> & { readonly records: PackedRecords; readonly seeks: number }): Promise<void> => {
    const entry = this.#entry(h);
    const { seeks, ...rest } = batch;
    // Fetched before the owner applied this thread's last seek: handled, it would skip what lies between
    // the seek's offset and its own (chaos seed 194679, Proxy: a rebuilt task took the batch its failed
    // predecessor had been refused, two records of the partition never forwarded). Refused, the owner
    // delivers from the new position instead.
    if (seeks < entry.seeks.of(batch)) {
      throw new FlowaggError(LOG_STALE_BATCH, `a batch of ${batch.topic}-${batch.partition} was fetched before the last seek; the partition is read again from where the seek moved it`, { retriable: true });
    }
    await this.#handlers(h).eachBatch({ ...rest, records: entry.unpack(batch.records) });
  };

  readonly assign = async (h: Handle, tps: readonly TopicPartition[]): Promise<void> => {
    const entry = this.#entry(h);
    entry.assigned.push(...tps.filter((tp) => !entry.assigned.some(same(tp))));
    await entry.handlers?.onAssign?.(tps);
  };

  readonly revoke = async (h: Handle, tps: readonly TopicPartition[]): Promise<void> => {
    const entry = this.#entry(h);
    entry.assigned = entry.assigned.filter((a) => !tps.some(same(a)));
    await entry.handlers?.onRevoke?.(tps);
  };

  readonly failure = (h: Handle, error: WireError): void => {
    this.#entries.get(h)?.handlers?.onFailure?.(fromWire(error));
  };

  #entry(h: Handle): Entry {
    const entry = this.#entries.get(h);
    if (entry === undefined) throw new Error(`no consumer ${h} in this thread`);
    return entry;
  }

  #handlers(h: Handle): ConsumerHandlers {
    const handlers = this.#entry(h).handlers;
    if (handlers === undefined) throw new Error(`consumer ${h} is not running`);
    return handlers;
  }
}
