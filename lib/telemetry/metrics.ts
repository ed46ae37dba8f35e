// Prometheus metrics. One registry per process; every metric name is prefixed `flowagg_<component>_`
// by `componentMetrics`, so names stay consistent without each module spelling the prefix.
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { AggregatorRegistry, Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
// prom-client's own names start with process_ and nodejs_: flowagg_process_cpu_user_seconds_total.
// They measure the process (CPU, memory, descriptors), so the main thread alone reports them: a
// service's worker thread would add its copy of the same figures to the sum.
if (isMainThread) collectDefaultMetrics({ register: registry, prefix: 'flowagg_' });

/** What a worker thread's registry holds (getMetricsAsJSON()), as prom-client's cluster mode merges it. */
export type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[];

const threadSources = new Set<() => Promise<ThreadMetrics>>();

/** A worker thread's metrics, merged into /metrics until the returned function removes them. */
export function addMetricsSource(source: () => Promise<ThreadMetrics>): () => void {
  threadSources.add(source);
  return () => threadSources.delete(source);
}

/**
 * This process's metrics: the registry, and with services on worker threads, each thread's merged in
 * (counters and histograms summed; their partitions and exporters are disjoint, so their series are
 * too). A thread that cannot answer (it is ending) is left out of this scrape.
 */
export async function processMetrics(): Promise<Registry> {
  if (threadSources.size === 0) return registry;
  const threads = await Promise.all([...threadSources].map((source) => source().catch(() => [])));
  return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...threads]);
}

type LabelNames<L extends string> = readonly L[];

function getOrCreate<T>(name: string, make: () => T): T {
  const existing = registry.getSingleMetric(name);
  return (existing as T | undefined) ?? make();
}

export function componentMetrics(component: string) {
  const prefix = `flowagg_${component}_`;
  return {
    /** `collect`, when given, runs at each scrape to bring the metric up to date (values read from elsewhere). */
    counter<L extends string>(name: string, help: string, labelNames: LabelNames<L> = [] as const, collect?: (this: Counter<L>) => void) {
      const full = prefix + name;
      return getOrCreate(full, () => new Counter<L>({ name: full, help, labelNames, registers: [registry], ...(collect && { collect }) }));
    },
    gauge<L extends string>(name: string, help: string, labelNames: LabelNames<L> = [] as const, collect?: (this: Gauge<L>) => void) {
      const full = prefix + name;
      return getOrCreate(full, () => new Gauge<L>({ name: full, help, labelNames, registers: [registry], ...(collect && { collect }) }));
    },
    histogram<L extends string>(name: string, help: string, labelNames: LabelNames<L> = [] as const, buckets?: number[]) {
      const full = prefix + name;
      return getOrCreate(full, () => new Histogram<L>({ name: full, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }));
    },
  };
}

// The peak resident set (Linux's VmHWM), which prom-client leaves out: memory bounds are judged by it,
// and only the process itself reads it reliably (from outside, /proc/<pid> may be another pid
// namespace's process).
if (isMainThread) componentMetrics('process').gauge('peak_resident_memory_bytes', 'Largest resident set size of the process so far, in bytes (Linux only).', [], function () {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return; // not Linux
  }
  const kb = /VmHWM:\s+(\d+) kB/.exec(status);
  if (kb) this.set(Number(kb[1]) * 1024);
});

/** The sum of a counter's series whose labels include `labels`, as /metrics shows it now. */
export async function counterTotal<L extends string>(counter: Counter<L>, labels: Partial<Record<L, string>> = {}): Promise<number> {
  const wanted = Object.entries(labels) as [L, string][];
  const metrics = await processMetrics();
  const merged = metrics === registry ? counter : metrics.getSingleMetric((counter as unknown as { name: string }).name);
  let total = 0;
  for (const series of merged === undefined ? [] : (await merged.get()).values) {
    if (wanted.every(([k, v]) => series.labels[k] === v)) total += series.value;
  }
  return total;
}
