// What the soak test samples, every few seconds, of a deployment running at a steady rate: per service its
// resident and heap memory, open file descriptors, sockets and timers (from its /metrics); the processors'
// lag on flows.raw and the exporters' on flows.processed; the end-to-end latency, from an Agent's export of a
// record to the flow log line holding it (the aggregation's own wait included), at its 99th percentile over
// the lines written since the sample before; and the broker's disk use per topic.
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { metricValue } from '../../../ingest/attacks/testing/harness.js';
import type { MessageLog } from '../../../lib/log/types.js';
import { quantile } from '../../../lib/testing/quantile.js';
import type { Deployment, Topics } from './deployment.js';

export interface ServiceSample {
  readonly rss: number;
  readonly heap: number;
  readonly fds: number;
  readonly sockets: number;
  readonly timers: number;
}

export interface SoakSample {
  /** Seconds since the Agents started. */
  readonly t: number;
  readonly services: Readonly<Record<string, ServiceSample>>;
  readonly rawLag: number;
  readonly processedLag: number;
  /** Seconds; NaN when no line was written since the last sample. */
  readonly latencyP99: number;
  /** Bytes on the broker's disk per topic (flows.raw, flows.processed, processor.state). */
  readonly disk: Readonly<Record<'raw' | 'processed' | 'state', number>>;
}

async function serviceSample(text: string): Promise<ServiceSample> {
  const m = (name: string, labels: Record<string, string> = {}) => metricValue(text, `flowagg_${name}`, labels);
  return {
    rss: m('process_resident_memory_bytes'), heap: m('nodejs_heap_size_used_bytes'), fds: m('process_open_fds'),
    sockets: m('nodejs_active_handles', { type: 'Socket' }), timers: m('nodejs_active_resources', { type: 'Timeout' }),
  };
}

/** Bytes on disk (blocks: the broker preallocates its index files sparse) of every partition directory of `topic`. */
async function topicBytes(dataDir: string, topic: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dataDir)) {
    if (!entry.startsWith(`${topic}-`) || !/^\d+$/.test(entry.slice(topic.length + 1))) continue;
    for (const file of await readdir(join(dataDir, entry))) total += (await stat(join(dataDir, entry, file)).catch(() => ({ blocks: 0 }))).blocks * 512;
  }
  return total;
}

/** The lines appended to a file since the last call (a partial last line waits for the next). */
class LineTail {
  #offset = 0;
  #partial = '';

  constructor(private readonly path: string) {}

  async next(): Promise<string[]> {
    const file = await open(this.path, 'r').catch(() => undefined);
    if (file === undefined) return [];
    try {
      const { size } = await file.stat();
      if (size <= this.#offset) return [];
      const buf = Buffer.alloc(size - this.#offset);
      await file.read(buf, 0, buf.length, this.#offset);
      this.#offset = size;
      const lines = (this.#partial + buf.toString('utf8')).split('\n');
      this.#partial = lines.pop()!;
      return lines.filter((l) => l !== '');
    } finally {
      await file.close();
    }
  }
}

export class SoakSampler {
  readonly samples: SoakSample[] = [];
  readonly #flowLog: LineTail;

  constructor(
    private readonly d: Deployment,
    private readonly log: MessageLog,
    private readonly dataDir: string,
    private readonly startedAt: number,
  ) {
    this.#flowLog = new LineTail(d.flowLog);
  }

  async sample(): Promise<SoakSample> {
    const d = this.d;
    const services: Record<string, ServiceSample> = {};
    for (const p of d.pods.values()) if (p.state === 'running') services[p.name] = await serviceSample(await p.get('/metrics'));
    const lag = async (group: string, topic: keyof Topics) => (await this.log.admin().fetchGroupLag(group)).filter((l) => l.topic === d.topics[topic]).reduce((n, l) => n + l.lag, 0);
    const now = Date.now();
    const latencies = (await this.#flowLog.next()).map((l) => {
      const r = JSON.parse(l) as { flowEndSeconds?: number; flowEndMilliseconds?: number };
      return (now - (r.flowEndMilliseconds ?? (r.flowEndSeconds ?? 0) * 1000)) / 1000;
    });
    const sample: SoakSample = {
      t: (now - this.startedAt) / 1000,
      services,
      rawLag: await lag(d.processorGroup, 'flowsRaw'),
      processedLag: await lag('flowagg-export-flowlog', 'flowsProcessed'),
      latencyP99: quantile(latencies, 0.99),
      disk: {
        raw: await topicBytes(this.dataDir, d.topics.flowsRaw),
        processed: await topicBytes(this.dataDir, d.topics.flowsProcessed),
        state: await topicBytes(this.dataDir, d.topics.processorState),
      },
    };
    this.samples.push(sample);
    return sample;
  }
}
