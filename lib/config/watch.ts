// Hot reload: watches the configuration file and applies what changed, by Antrea's rules (reference §1):
// the directory is watched, not the file, because a Kubernetes ConfigMap volume replaces the file by
// swapping a symlink. A changed file is read and validated again; an invalid one is logged and the
// running configuration kept. Of a valid one, `live` keys are applied and their subscribers notified,
// `restart` keys are logged as needing a restart, `refused` keys (Antrea's `mode`) are logged as errors.
import { EventEmitter } from 'node:events';
import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { errorMessage } from '../errors.js';
import { componentMetrics } from '../telemetry/metrics.js';
import type { Logger } from '../telemetry/logger.js';
import { configKeys, type ConfigKey } from './keys.js';
import { type ConfigDiagnostic, readConfig } from './load.js';
import type { ReloadPolicy } from './meta.js';
import { planReload } from './reload.js';

export type ReloadOutcome =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'invalid'; readonly diagnostics: readonly ConfigDiagnostic[] }
  | { readonly kind: 'applied'; readonly changes: Readonly<Record<ReloadPolicy, readonly string[]>> };

export interface ConfigWatcherOptions {
  readonly file: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Key path → value, as loadConfig's: applied to every version of the file. */
  readonly overrides?: Record<string, unknown>;
  readonly logger: Logger;
  /** Editors write a file in several steps; events closer together than this are one change. */
  readonly debounceMs?: number;
}

interface Subscription<C> {
  readonly select: (config: C) => unknown;
  readonly onChange: (next: unknown, prev: unknown) => void | Promise<void>;
}

const metrics = componentMetrics('config');
const reloads = metrics.counter('reloads_total', 'Configuration file changes seen, by result (applied, invalid, unchanged)', ['result']);
const restartPending = metrics.gauge('restart_pending', '1 when the configuration file has changes that take effect only after a restart');
const subscriberFailures = metrics.counter('subscriber_failures_total', 'Services that failed to apply a live configuration change');

export class ConfigWatcher<S extends z.ZodType> extends EventEmitter<{ reload: [ReloadOutcome] }> {
  readonly #schema: S;
  readonly #keys: readonly ConfigKey[];
  readonly #opts: ConfigWatcherOptions;
  readonly #subscriptions = new Set<Subscription<z.output<S>>>();
  #current: z.output<S>;
  #text: string | undefined;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(schema: S, initial: z.output<S>, opts: ConfigWatcherOptions) {
    super();
    this.#schema = schema;
    this.#keys = configKeys(schema);
    this.#opts = opts;
    this.#current = initial;
    this.#text = this.#read();
  }

  /** The configuration the service runs with. */
  get current(): z.output<S> {
    return this.#current;
  }

  /**
   * Calls `onChange(next, prev)` when the part of the configuration `select` picks changes (deep
   * comparison) by a live reload. Returns the unsubscribe function.
   */
  subscribe<T>(select: (config: z.output<S>) => T, onChange: (next: T, prev: T) => void | Promise<void>): () => void {
    const sub = { select, onChange } as Subscription<z.output<S>>;
    this.#subscriptions.add(sub);
    return () => this.#subscriptions.delete(sub);
  }

  start(): void {
    const name = basename(this.#opts.file);
    this.#watcher = watch(dirname(this.#opts.file), (_event, changed) => {
      if (changed !== null && changed !== name && !changed.startsWith('..')) return;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.reload(), this.#opts.debounceMs ?? 200);
    });
    this.#watcher.on('error', (err) => this.#opts.logger.error({ err: errorMessage(err), file: this.#opts.file }, 'cannot watch the configuration file'));
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  /** Reads the file again and applies what changed (also what SIGHUP does). Reloads run one at a time. */
  reload(): Promise<ReloadOutcome> {
    const run = this.#queue.then(() => this.#reload());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #read(): string | undefined {
    try {
      return readFileSync(this.#opts.file, 'utf8');
    } catch {
      return undefined;
    }
  }

  async #reload(): Promise<ReloadOutcome> {
    const { logger, file } = this.#opts;
    const text = this.#read();
    if (text === undefined || text === this.#text) return this.#done({ kind: 'unchanged' });
    this.#text = text;
    const result = readConfig(this.#schema, { file, text, ...(this.#opts.env && { env: this.#opts.env }), ...(this.#opts.overrides && { overrides: this.#opts.overrides }) });
    if (!result.ok) {
      logger.error({ file, errors: result.diagnostics.filter((d) => d.level === 'error') }, 'the changed configuration file is invalid: running on with the previous configuration');
      return this.#done({ kind: 'invalid', diagnostics: result.diagnostics });
    }
    for (const d of result.diagnostics) logger.warn({ file, ...d }, `configuration: ${d.path} ${d.message}`);
    const prev = this.#current;
    // Changes are taken against what runs: a restart-only change stays pending until reverted.
    const plan = planReload(this.#keys, prev, result.config);
    this.#current = plan.effective;
    const pending = plan.changes.restart.length > 0 || plan.changes.refused.length > 0;
    restartPending.set(pending ? 1 : 0);
    if (plan.changes.refused.length > 0) logger.error({ file, keys: plan.changes.refused }, 'these keys cannot change while running: the change is refused and the running value kept');
    if (plan.changes.restart.length > 0) logger.warn({ file, keys: plan.changes.restart }, 'these keys take effect only after a restart');
    if (plan.changes.live.length > 0) logger.info({ file, keys: plan.changes.live }, 'configuration change applied');
    await this.#notify(prev, plan.effective);
    return this.#done({ kind: 'applied', changes: plan.changes });
  }

  async #notify(prev: z.output<S>, next: z.output<S>): Promise<void> {
    for (const sub of this.#subscriptions) {
      const before = sub.select(prev);
      const after = sub.select(next);
      if (isDeepStrictEqual(before, after)) continue;
      try {
        await sub.onChange(after, before);
      } catch (err) {
        subscriberFailures.inc();
        this.#opts.logger.error({ err: errorMessage(err) }, 'a service failed to apply a configuration change');
      }
    }
  }

  #done(outcome: ReloadOutcome): ReloadOutcome {
    reloads.inc({ result: outcome.kind });
    this.emit('reload', outcome);
    return outcome;
  }
}
