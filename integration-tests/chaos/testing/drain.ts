// The end of a chaos run: every service up again, then nothing left in flight: the processors hold no flow
// and have read flows.raw (but for the clock ticks ingest keeps writing), and every exporter group has
// committed past the last record of each partition of flows.processed, which it does only once its
// destination took everything. (Not the partition's end: the processors' transaction markers, and records
// of aborted transactions, come after it.) Judged three times in a row, a second apart. The embedded log's
// drain (embedded-drain.ts) judges the same from the log once `flowagg run` has stopped.
import { until } from '../../../lib/testing/until.js';
import type { MessageLog, Reader } from '../../../lib/log/types.js';
import { RAW_PARTITIONS, type Topics } from './config.js';
import type { Deployment } from './deployment.js';
import type { Pod } from './pod.js';

export const EXPORT_GROUPS = ['flowagg-export-ipfix', 'flowagg-export-clickhouse', 'flowagg-export-flowlog'];

/** Per partition of a transactional topic, the offset after its last committed record, read as it grows. */
export class RecordTail {
  readonly #next = new Map<number, number>();
  readonly #end = new Map<number, number>();

  constructor(private readonly reader: Reader, private readonly topic: string) {}

  async ends(partitions: readonly number[]): Promise<ReadonlyMap<number, number>> {
    for (const partition of partitions) {
      for (;;) {
        const r = await this.reader.fetch({ topic: this.topic, partition }, this.#next.get(partition) ?? 0);
        const last = r.records.at(-1);
        if (last !== undefined) this.#end.set(partition, last.offset + 1);
        this.#next.set(partition, r.next);
        if (r.next >= r.highWatermark) break;
      }
    }
    return this.#end;
  }
}

/** Records of `topic` past what `group` committed, the clock ticks of flows.raw included. */
export async function lagOn(log: Pick<MessageLog, 'admin'>, group: string, topic: string, ends?: ReadonlyMap<number, number>): Promise<number> {
  const lags = (await log.admin().fetchGroupLag(group)).filter((l) => l.topic === topic);
  if (ends === undefined) return lags.reduce((n, l) => n + l.lag, 0);
  return [...ends].reduce((n, [partition, end]) => n + Math.max(0, end - (lags.find((l) => l.partition === partition)?.committed ?? 0)), 0);
}

/** Every pod that should run is running; else an error saying which are not, and why the last one that exited did. */
export function allRunning(pods: readonly Pod[]): true {
  const down = pods.filter((p) => p.state !== 'running');
  if (down.length === 0) return true;
  throw new Error(down.map((p) => `${p.name} ${p.state}${p.crashes.length > 0 ? `, last exit: ${p.crashes.at(-1)!.logTail.split('\n').filter((l) => l !== '').slice(-3).join(' | ')}` : ''}`).join('; '));
}

/**
 * What `log` holds in flight, undefined when nothing: `flows` held by the processors, flows.raw not read by
 * them (but for the clock ticks), records of flows.processed some exporter group has not committed.
 */
export async function leftInFlight(log: MessageLog, o: { flows: number; processorGroup: string; topics: Topics; tail: RecordTail }): Promise<string | undefined> {
  const partitions = (await log.admin().fetchTopicOffsets(o.topics.flowsProcessed)).map((p) => p.partition);
  const rawLag = await lagOn(log, o.processorGroup, o.topics.flowsRaw);
  const ends = await o.tail.ends(partitions);
  const exportLags = await Promise.all(EXPORT_GROUPS.map((g) => lagOn(log, g, o.topics.flowsProcessed, ends)));
  if (o.flows === 0 && rawLag <= 3 * RAW_PARTITIONS && exportLags.every((l) => l === 0)) return undefined;
  return `${o.flows} flows held by the processors, flows.raw lag ${rawLag}, records of flows.processed not committed by ${EXPORT_GROUPS.map((g, i) => `${g} ${exportLags[i]}`).join(', ')}`;
}

export async function drain(d: Deployment, log: MessageLog, timeoutMs: number): Promise<void> {
  const live = () => [...d.pods.values()].filter((p) => !(p.name === 'process-3' && p.state === 'stopped'));
  await until('every service running again', () => allRunning(live()), { timeoutMs, intervalMs: 500 });
  const reader = log.reader();
  const tail = new RecordTail(reader, d.topics.flowsProcessed);
  let held = 0;
  try {
    await until('nothing left in flight (processors empty and caught up, exporters committed to the end)', async () => {
      const processors = live().filter((p) => p.name.startsWith('process-'));
      const flows = (await Promise.all(processors.map(async (p) => (JSON.parse(await p.get('/recordmetrics')) as { numFlows: number }).numFlows))).reduce((a, b) => a + b, 0);
      const left = await leftInFlight(log, { flows, processorGroup: d.processorGroup, topics: d.topics, tail });
      held = left === undefined ? held + 1 : 0;
      if (held >= 3) return true;
      throw new Error(left ?? `nothing in flight ${held} times in a row`);
    }, { timeoutMs, intervalMs: 1000 });
  } finally {
    await reader.close();
  }
}
