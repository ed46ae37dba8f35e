// The end of a chaos run: every service up again, then nothing left in flight: the processors hold no flow
// and have read flows.raw (but for the clock ticks ingest keeps writing), and every exporter group has
// committed past the last record of each partition of flows.processed, which it does only once its
// destination took everything. (Not the partition's end: the processors' transaction markers, and records
// of aborted transactions, come after it.) Judged three times in a row, a second apart.
import { until } from '../../../lib/testing/until.js';
import type { MessageLog, Reader } from '../../../lib/log/types.js';
import { type Deployment, RAW_PARTITIONS } from './deployment.js';

const EXPORT_GROUPS = ['flowagg-export-ipfix', 'flowagg-export-clickhouse', 'flowagg-export-flowlog'];

/** Per partition of a transactional topic, the offset after its last committed record, read as it grows. */
class RecordTail {
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
async function lagOn(log: MessageLog, group: string, topic: string, ends?: ReadonlyMap<number, number>): Promise<number> {
  const lags = (await log.admin().fetchGroupLag(group)).filter((l) => l.topic === topic);
  if (ends === undefined) return lags.reduce((n, l) => n + l.lag, 0);
  return [...ends].reduce((n, [partition, end]) => n + Math.max(0, end - (lags.find((l) => l.partition === partition)?.committed ?? 0)), 0);
}

export async function drain(d: Deployment, log: MessageLog, timeoutMs: number): Promise<void> {
  const live = () => [...d.pods.values()].filter((p) => !(p.name === 'process-3' && p.state === 'stopped'));
  await until('every service running again', () => {
    const down = live().filter((p) => p.state !== 'running');
    if (down.length === 0) return true;
    throw new Error(down.map((p) => `${p.name} ${p.state}${p.crashes.length > 0 ? `, last exit: ${p.crashes.at(-1)!.logTail.split('\n').filter((l) => l !== '').slice(-3).join(' | ')}` : ''}`).join('; '));
  }, { timeoutMs, intervalMs: 500 });
  const reader = log.reader();
  const tail = new RecordTail(reader, d.topics.flowsProcessed);
  const partitions = (await log.admin().fetchTopicOffsets(d.topics.flowsProcessed)).map((p) => p.partition);
  let held = 0;
  try {
    await until('nothing left in flight (processors empty and caught up, exporters committed to the end)', async () => {
      const processors = live().filter((p) => p.name.startsWith('process-'));
      const flows = (await Promise.all(processors.map(async (p) => (JSON.parse(await p.get('/recordmetrics')) as { numFlows: number }).numFlows))).reduce((a, b) => a + b, 0);
      const rawLag = await lagOn(log, d.processorGroup, d.topics.flowsRaw);
      const ends = await tail.ends(partitions);
      const exportLags = await Promise.all(EXPORT_GROUPS.map((g) => lagOn(log, g, d.topics.flowsProcessed, ends)));
      held = flows === 0 && rawLag <= 3 * RAW_PARTITIONS && exportLags.every((l) => l === 0) ? held + 1 : 0;
      if (held >= 3) return true;
      throw new Error(`${flows} flows held by the processors, flows.raw lag ${rawLag}, records of flows.processed not committed by ${EXPORT_GROUPS.map((g, i) => `${g} ${exportLags[i]}`).join(', ')}`);
    }, { timeoutMs, intervalMs: 1000 });
  } finally {
    await reader.close();
  }
}
