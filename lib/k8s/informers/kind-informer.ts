// One informer (@kubernetes/client-node's ListWatch) for one kind: list, then watch from the list's
// resourceVersion; the library re-watches when the server ends a watch and relists on 410 Gone. What
// it does not do is come back after an error (it stops, as its own examples note), so this restarts it
// with jittered exponential backoff (lib/retry.ts), and counts and logs what happened.
import { type KubeConfig, type KubernetesListObject, type KubernetesObject, ListWatch } from '@kubernetes/client-node';
import { errorMessage } from '../../errors.js';
import { Backoff, type BackoffPolicy } from '../../retry.js';
import type { Logger } from '../../telemetry/logger.js';
import { StoppableWatch } from '../stoppable-watch.js';
import { k8sMetrics } from './metrics.js';

export interface KindSpec<T extends KubernetesObject> {
  /** Metric label and log field: "pods", "nodes", "services", "cluster-identity". */
  readonly kind: string;
  /** The watch path, e.g. /api/v1/pods. */
  readonly path: string;
  readonly list: () => Promise<KubernetesListObject<T>>;
  readonly fieldSelector?: string;
  readonly onUpsert: (obj: T, nowMs: number) => void;
  readonly onDelete: (obj: T, nowMs: number) => void;
}

/** Delays before restarting after consecutive errors: initialMs doubled per error (jittered), up to maxMs. */
export type RestartPolicy = BackoffPolicy;

export interface KindStats {
  readonly synced: boolean;
  readonly lastSyncMs: number | undefined;
  readonly watchRestarts: number;
  readonly relists: number;
  readonly errors: number;
  /** The last error, while the informer has not listed or watched successfully since. */
  readonly failing: string | undefined;
}

export class KindInformer<T extends KubernetesObject> {
  readonly #spec: KindSpec<T>;
  readonly #informer: ListWatch<T>;
  readonly #backoff: Backoff;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #synced: Promise<void>;
  #markSynced!: () => void;
  readonly #watch: StoppableWatch;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #connects = 0;
  #lists = 0;
  #stats: { lastSyncMs: number | undefined; errors: number; failing: string | undefined } = { lastSyncMs: undefined, errors: 0, failing: undefined };

  constructor(kubeConfig: KubeConfig, spec: KindSpec<T>, opts: { policy: RestartPolicy; now: () => number; log: Logger }) {
    this.#watch = new StoppableWatch(kubeConfig);
    this.#spec = spec;
    this.#backoff = new Backoff(opts.policy);
    this.#now = opts.now;
    this.#log = opts.log.child({ kind: spec.kind });
    this.#synced = new Promise((resolve) => (this.#markSynced = resolve));
    this.#informer = new ListWatch<T>(spec.path, this.#watch, () => this.#list(), false, undefined, spec.fieldSelector);
    this.#informer.on('add', (o) => spec.onUpsert(o, this.#now()));
    this.#informer.on('update', (o) => spec.onUpsert(o, this.#now()));
    this.#informer.on('delete', (o) => spec.onDelete(o, this.#now()));
    this.#informer.on('connect', () => {
      if (this.#connects++ > 0) k8sMetrics.watchRestarts.labels(spec.kind).inc();
    });
    this.#informer.on('error', (err) => this.#failed(err));
  }

  get kind(): string {
    return this.#spec.kind;
  }

  /** Resolves after the first complete list has been applied. */
  whenSynced(): Promise<void> {
    return this.#synced;
  }

  stats(): KindStats {
    return {
      synced: this.#stats.lastSyncMs !== undefined,
      lastSyncMs: this.#stats.lastSyncMs,
      watchRestarts: Math.max(0, this.#connects - 1),
      relists: Math.max(0, this.#lists - 1),
      errors: this.#stats.errors,
      failing: this.#stats.failing,
    };
  }

  start(): void {
    this.#stopped = false;
    this.#watch.resume();
    const errorsBefore = this.#stats.errors;
    // start() resolves once the watch is open (or failed, which the error callback has reported).
    this.#informer.start().then(
      () => {
        if (this.#stats.errors !== errorsBefore) return;
        this.#stats.failing = undefined;
        this.#backoff.reset();
      },
      (err: unknown) => this.#failed(err),
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#watch.stop();
    clearTimeout(this.#timer);
    await this.#informer.stop();
  }

  async #list(): Promise<KubernetesListObject<T>> {
    if (this.#lists++ > 0) k8sMetrics.relists.labels(this.#spec.kind).inc();
    const started = this.#now();
    const list = await this.#spec.list();
    // A list that was in flight when stop() was called: fail it, or ListWatch would go on to watch.
    if (this.#stopped) throw new Error('informer stopped');
    // ListWatch applies the items synchronously once this promise resolves, before any macrotask: by
    // setImmediate the store holds the whole list.
    setImmediate(() => {
      const first = this.#stats.lastSyncMs === undefined;
      this.#stats.lastSyncMs = this.#now();
      this.#stats.failing = undefined;
      this.#backoff.reset();
      k8sMetrics.lastSync.labels(this.#spec.kind).set(this.#stats.lastSyncMs / 1000);
      const fields = { items: list.items.length, resourceVersion: list.metadata?.resourceVersion, ms: this.#stats.lastSyncMs - started };
      if (first) this.#log.info(fields, 'listed');
      else this.#log.info(fields, 'relisted');
      this.#markSynced();
    });
    return list;
  }

  #failed(err: unknown): void {
    if (this.#stopped) return;
    this.#stats.errors++;
    this.#stats.failing = errorMessage(err);
    k8sMetrics.watchErrors.labels(this.#spec.kind).inc();
    const delayMs = this.#backoff.next();
    this.#log.warn({ err: this.#stats.failing, retryInMs: delayMs }, 'list or watch failed; restarting');
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (!this.#stopped) this.start();
    }, delayMs);
    this.#timer.unref();
  }
}
