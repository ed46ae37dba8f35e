// Prometheus metrics of the Kubernetes metadata sources (flowagg_k8s_*). Object counts and lookup
// counts are read from the stores when scraped, so the hot path only bumps plain numbers.
import { componentMetrics } from '../../telemetry/metrics.js';
import type { ObjectKind } from '../store/events.js';
import type { MetadataStore } from '../store/metadata-store.js';

const m = componentMetrics('k8s');
const KINDS: readonly ObjectKind[] = ['Pod', 'Node', 'Service'];

/** The stores of the sources open in this process. */
const stores = new Set<MetadataStore>();

export const k8sMetrics = {
  watchRestarts: m.counter('watch_restarts_total', 'Watches opened again after one ended (server timeout, broken connection, relist, error)', ['kind']),
  relists: m.counter('relists_total', 'Full lists after the first one (410 Gone, or a restart after an error before the watch resumed)', ['kind']),
  watchErrors: m.counter('watch_errors_total', 'Lists or watches that failed; the informer restarts with backoff', ['kind']),
  lastSync: m.gauge('last_sync_timestamp_seconds', 'When the last complete list of the kind was applied', ['kind']),
};

m.gauge('objects', 'Objects held for lookups: live, and deleted ones kept for the retention', ['kind', 'state'], function collect() {
  this.reset();
  for (const kind of KINDS) {
    let live = 0;
    let deleted = 0;
    for (const s of stores) {
      const c = s.counts(kind);
      live += c.live;
      deleted += c.deleted;
    }
    this.labels(kind, 'live').set(live);
    this.labels(kind, 'deleted').set(deleted);
  }
});

const lookups = m.counter('pod_lookups_total', 'Pod lookups by IP, by whether a Pod was found', ['result'], () => stores.forEach(reportLookups));
/** What each store's counts were when last reported: counters only grow, so each scrape adds the difference. */
const reported = new Map<MetadataStore, { hit: number; miss: number }>();

function reportLookups(s: MetadataStore): void {
  const prev = reported.get(s) ?? { hit: 0, miss: 0 };
  if (s.podHits > prev.hit) lookups.labels('hit').inc(s.podHits - prev.hit);
  if (s.podMisses > prev.miss) lookups.labels('miss').inc(s.podMisses - prev.miss);
  reported.set(s, { hit: s.podHits, miss: s.podMisses });
}

export function registerStore(store: MetadataStore): () => void {
  stores.add(store);
  return () => {
    reportLookups(store);
    reported.delete(store);
    stores.delete(store);
  };
}
