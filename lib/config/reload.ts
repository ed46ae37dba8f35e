// What a changed configuration file means for a running service, decided without I/O: which keys
// changed, and per Antrea's reload policies (meta.ts) which changes apply now, which wait for a restart
// and which are refused. The configuration the service goes on with is the old one with only the
// `live` changes applied, so a key that needs a restart keeps the value the service actually runs with.
import { isDeepStrictEqual } from 'node:util';
import { type ConfigKey, reloadPolicyOf } from './keys.js';
import type { ReloadPolicy } from './meta.js';

export interface ReloadPlan<C> {
  /** The configuration to run with from now on. */
  readonly effective: C;
  /** Changed key paths ("flowCollector.address") by policy. */
  readonly changes: Readonly<Record<ReloadPolicy, readonly string[]>>;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The paths of the values that differ; a list is one value. */
export function changedPaths(prev: unknown, next: unknown, prefix: readonly string[] = []): string[][] {
  if (isPlainObject(prev) && isPlainObject(next)) {
    const keys = new Set([...Object.keys(prev), ...Object.keys(next)]);
    return [...keys].flatMap((k) => changedPaths(prev[k], next[k], [...prefix, k]));
  }
  return isDeepStrictEqual(prev, next) ? [] : [[...prefix]];
}

function withValue(target: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const base = isPlainObject(target) ? { ...target } : {};
  const [head, ...rest] = path as [string, ...string[]];
  const child = withValue(base[head], rest, value);
  if (child === undefined) delete base[head];
  else base[head] = child;
  return base;
}

function valueAt(doc: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, k) => (isPlainObject(node) ? node[k] : undefined), doc);
}

export function planReload<C>(keys: readonly ConfigKey[], prev: C, next: C): ReloadPlan<C> {
  const changes: Record<ReloadPolicy, string[]> = { live: [], restart: [], refused: [] };
  let effective: unknown = prev;
  for (const path of changedPaths(prev, next)) {
    const policy = reloadPolicyOf(keys, path);
    changes[policy].push(path.join('.'));
    if (policy === 'live') effective = withValue(effective, path, valueAt(next, path));
  }
  return { effective: effective as C, changes };
}
