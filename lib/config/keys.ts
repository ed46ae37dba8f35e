// Walks a configuration schema into the list of its keys: path, type, default, description and the
// metadata of meta.ts. One walk serves the environment overrides (which keys exist), hot reload (which
// policy applies to a path), `flowagg config defaults` and docs/configuration.md.
import { z } from 'zod';
import type { ReloadPolicy, ValueKind } from './meta.js';

export interface ConfigKey {
  /** ['ingest', 'udp', 'maxDatagramBytes'] */
  readonly path: readonly string[];
  /** A section (an object of keys) rather than a value. */
  readonly section: boolean;
  /** How the value is written, for people: "integer 0..65535", "one of: embedded, kafka", "duration". */
  readonly type: string;
  /** The default (as held, e.g. milliseconds for a duration); absent when the key has none. */
  readonly default?: { readonly value: unknown };
  readonly description?: string;
  readonly reload?: ReloadPolicy;
  readonly valueKind?: ValueKind;
  readonly note?: string;
  /** Values that mean the default (Antrea's "" or 0, empty.ts). */
  readonly emptyValues?: readonly ('' | 0)[];
  /** null is a value of this key (else a key written with no value is left out). */
  readonly nullable: boolean;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  defaultValue?: unknown;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
interface CheckDef {
  check: string;
  value?: number;
  inclusive?: boolean;
  format?: string;
}

/** A number's format and bounds, from its checks (zod keeps them there, not in one place). */
function numberFacts(s: z.ZodType): { int: boolean; minimum?: number; maximum?: number } {
  const checks = ((defOf(s) as { checks?: { _zod: { def: CheckDef } }[] }).checks ?? []).map((c) => c._zod.def);
  let int = false;
  let minimum: number | undefined;
  let maximum: number | undefined;
  for (const c of checks) {
    if (c.check === 'number_format') int ||= c.format?.includes('int') ?? false;
    // An exclusive bound of an integer is the next integer (positive() is ≥ 1).
    const step = c.inclusive === false ? 1 : 0;
    if (c.check === 'greater_than') minimum = Math.max(minimum ?? -Infinity, c.value! + step);
    if (c.check === 'less_than') maximum = Math.min(maximum ?? Infinity, c.value! - step);
  }
  return { int, ...(minimum !== undefined && { minimum }), ...(maximum !== undefined && { maximum }) };
}

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

interface Unwrapped {
  readonly core: z.ZodType;
  readonly meta: z.GlobalMeta;
  readonly default?: { readonly value: unknown };
  readonly nullable: boolean;
}

/** Strips default/optional/nullable wrappers (and an object's transform), merging the metadata of every level. */
function unwrap(schema: z.ZodType): Unwrapped {
  let meta: z.GlobalMeta = {};
  let dflt: { value: unknown } | undefined;
  let nullable = false;
  let s = schema;
  for (;;) {
    meta = { ...z.globalRegistry.get(s), ...meta };
    const def = defOf(s);
    if (def.type === 'default' && dflt === undefined) dflt = { value: def.defaultValue };
    if (def.type === 'nullable') nullable = true;
    if (WRAPPERS.has(def.type) && def.innerType !== undefined && meta.valueKind === undefined && meta.typeLabel === undefined) {
      s = def.innerType;
    } else if (def.type === 'pipe' && def.in !== undefined && defOf(def.in).type === 'object') {
      s = def.in;
    } else if (def.type === 'pipe' && def.in !== undefined && defOf(def.in).type === 'transform') {
      // A preprocess (empty.ts): the key is its schema.
      s = def.out!;
    } else {
      // A refinement piped after a duration or size (byteSize.pipe(z.number().min(4096))) is still one.
      if (def.type === 'pipe' && meta.valueKind === undefined) {
        const inner = unwrap(def.in!).meta.valueKind;
        if (inner !== undefined) meta = { ...meta, valueKind: inner };
      }
      return { core: s, meta, ...(dflt && { default: dflt }), nullable };
    }
  }
}

function range(min: number | undefined, max: number | undefined): string {
  const lo = min === undefined || !Number.isFinite(min) || min <= Number.MIN_SAFE_INTEGER ? undefined : min;
  const hi = max === undefined || !Number.isFinite(max) || max >= Number.MAX_SAFE_INTEGER ? undefined : max;
  if (lo !== undefined && hi !== undefined) return ` ${lo}..${hi}`;
  if (lo !== undefined) return ` ≥ ${lo}`;
  if (hi !== undefined) return ` ≤ ${hi}`;
  return '';
}

/** How a value of this schema is written, for people. */
export function typeLabel(schema: z.ZodType): string {
  const { core, meta, nullable } = unwrap(schema);
  const label = meta.typeLabel ?? meta.valueKind ?? coreLabel(core);
  return nullable ? `${label} or null` : label;
}

function coreLabel(s: z.ZodType): string {
  const def = defOf(s);
  switch (def.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number': {
      const n = numberFacts(s);
      return `${n.int ? 'integer' : 'number'}${range(n.minimum, n.maximum)}`;
    }
    case 'enum':
      return `one of: ${Object.values(def.entries ?? {}).join(', ')}`;
    case 'literal':
      return (def.values ?? []).map((v) => JSON.stringify(v)).join(' or ');
    case 'array':
      return `list of ${typeLabel(def.element!)}`;
    case 'record':
      return `map of ${typeLabel(def.valueType!)}`;
    case 'union':
      return [...new Set((def.options ?? []).map(typeLabel))].join(' or ');
    case 'object':
      return 'section';
    case 'pipe':
      return defOf(def.in!).type === 'transform' ? typeLabel(def.out!) : typeLabel(def.in!);
    default:
      return 'any';
  }
}

/** Every key of an object schema, depth first, each section before its keys. */
export function configKeys(schema: z.ZodType, prefix: readonly string[] = []): ConfigKey[] {
  const { core } = unwrap(schema);
  const def = defOf(core);
  if (def.type !== 'object' || def.shape === undefined) return [];
  const out: ConfigKey[] = [];
  for (const [name, child] of Object.entries(def.shape)) {
    const path = [...prefix, name];
    const u = unwrap(child);
    const section = defOf(u.core).type === 'object';
    out.push({
      path,
      section,
      type: section ? 'section' : typeLabel(child),
      ...(!section && u.default && { default: u.default }),
      ...(u.meta.description !== undefined && { description: u.meta.description }),
      ...(u.meta.reload !== undefined && { reload: u.meta.reload }),
      ...(u.meta.valueKind !== undefined && { valueKind: u.meta.valueKind }),
      ...(u.meta.note !== undefined && { note: u.meta.note }),
      ...(u.meta.emptyValues !== undefined && { emptyValues: u.meta.emptyValues }),
      nullable: u.nullable,
    });
    if (section) out.push(...configKeys(u.core, path));
  }
  return out;
}

/** The keys one level below `path` (the top level for []), for suggestions. */
export function childKeys(keys: readonly ConfigKey[], path: readonly string[]): string[] {
  return keys.filter((k) => k.path.length === path.length + 1 && path.every((p, i) => k.path[i] === p)).map((k) => k.path[path.length]!);
}

/** The reload policy of a path: its own, else its nearest ancestor's, else `restart`. */
export function reloadPolicyOf(keys: readonly ConfigKey[], path: readonly string[]): ReloadPolicy {
  const byPath = new Map(keys.map((k) => [k.path.join('.'), k.reload]));
  for (let n = path.length; n > 0; n--) {
    const policy = byPath.get(path.slice(0, n).join('.'));
    if (policy !== undefined) return policy;
  }
  return 'restart';
}
