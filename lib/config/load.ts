// Loads flowagg's configuration: a YAML file (Antrea's flow-aggregator.conf keys are accepted as they
// are), then FLOWAGG_CFG_<PATH> environment overrides, then command-line overrides, validated against the
// schema. Like Antrea (reference §3, #6156), unknown keys do not stop a service: each is a warning naming
// its path and the closest known key, and is dropped. Invalid values of known keys are errors, all of them
// reported at once, each with its key path, where it was set (file:line or the environment variable),
// the value and what is allowed, so a person can fix the file in one pass.
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, parse as parseYaml, type Document } from 'yaml';
import type { z } from 'zod';
import { FlowaggError } from '../errors.js';
import { configErrorMap, withValue } from './issues.js';
import { type ConfigKey, childKeys, configKeys } from './keys.js';
import { closestKey } from './suggest.js';
import { dropUnsetValues } from './unset.js';

export const CONFIG_INVALID = 'FLOWAGG_ERR_CONFIG_INVALID';

export type DiagnosticLevel = 'error' | 'warning' | 'notice';

export interface ConfigDiagnostic {
  readonly level: DiagnosticLevel;
  /** The key path, "ingest.udp.maxSessions"; "" for the document itself. */
  readonly path: string;
  readonly message: string;
  /** Where the value was set: "flowagg.yaml:12", "environment variable FLOWAGG_CFG_INGEST_PORT", "command line". */
  readonly source?: string;
}

export type ConfigResult<T> =
  | { readonly ok: true; readonly config: T; readonly diagnostics: readonly ConfigDiagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

export interface ConfigSources {
  /** The YAML file; its name appears in messages. */
  readonly file?: string;
  /** The file's text, when already read (`flowagg config check -` reads stdin). */
  readonly text?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Key path → value, from command-line flags; they win over the file and the environment. */
  readonly overrides?: Record<string, unknown>;
}

type Doc = Record<string, unknown>;
const ENV_PREFIX = 'FLOWAGG_CFG_';

function setPath(doc: Doc, path: readonly string[], value: unknown): void {
  let node = doc;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Doc;
  }
  node[path[path.length - 1]!] = value;
}

function getPath(doc: unknown, path: readonly PropertyKey[]): unknown {
  let node = doc;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Where each value came from, for messages. */
class Origins {
  readonly #set = new Map<string, string>();
  constructor(
    readonly file: string | undefined,
    readonly yaml: Document | undefined,
    readonly lines: LineCounter | undefined,
  ) {}

  set(path: readonly string[], source: string): void {
    this.#set.set(path.join('.'), source);
  }

  of(path: readonly PropertyKey[]): string | undefined {
    const parts = path.map(String);
    for (let n = parts.length; n > 0; n--) {
      const source = this.#set.get(parts.slice(0, n).join('.'));
      if (source !== undefined) return source;
    }
    if (this.yaml === undefined || this.lines === undefined) return this.file;
    for (let n = parts.length; n > 0; n--) {
      const start = keyStart(this.yaml, path.slice(0, n));
      if (start !== undefined) return `${this.file}:${this.lines.linePos(start).line}`;
    }
    return this.file;
  }
}

/** Where the key of `path` starts in the YAML text (a map's key, a sequence's item). */
function keyStart(yaml: Document, path: readonly PropertyKey[]): number | undefined {
  const parent = (path.length === 1 ? yaml.contents : yaml.getIn(path.slice(0, -1), true)) as { items?: unknown[] } | null;
  const last = path[path.length - 1];
  for (const [i, item] of (parent?.items ?? []).entries()) {
    const pair = item as { key?: { value?: unknown; range?: number[] }; range?: number[] };
    if (pair.key !== undefined ? String(pair.key.value) === String(last) : String(i) === String(last)) return (pair.key ?? pair).range?.[0];
  }
  return undefined;
}

function diagnostic(level: DiagnosticLevel, path: readonly PropertyKey[], message: string, source: string | undefined): ConfigDiagnostic {
  return { level, path: path.map(String).join('.'), message, ...(source !== undefined && { source }) };
}

function readDocument(sources: ConfigSources, out: ConfigDiagnostic[]): { doc: Doc; origins: Origins } {
  const file = sources.file;
  if (file === undefined && sources.text === undefined) return { doc: {}, origins: new Origins(undefined, undefined, undefined) };
  const name = file ?? 'configuration';
  let text = sources.text;
  if (text === undefined) {
    try {
      text = readFileSync(file!, 'utf8');
    } catch (err) {
      out.push(diagnostic('error', [], `cannot read configuration file ${name}: ${(err as Error).message}`, undefined));
      return { doc: {}, origins: new Origins(name, undefined, undefined) };
    }
  }
  const lines = new LineCounter();
  const yaml = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  for (const e of yaml.errors) {
    out.push(diagnostic('error', [], `not valid YAML: ${e.message.split('\n')[0]}`, `${name}:${lines.linePos(e.pos[0]).line}`));
  }
  const origins = new Origins(name, yaml, lines);
  if (yaml.errors.length > 0) return { doc: {}, origins };
  const value: unknown = yaml.toJS();
  if (value === null || value === undefined) return { doc: {}, origins };
  if (typeof value !== 'object' || Array.isArray(value)) {
    out.push(diagnostic('error', [], `the top level must be a mapping of keys, not ${Array.isArray(value) ? 'a list' : JSON.stringify(value)}`, name));
    return { doc: {}, origins };
  }
  return { doc: value as Doc, origins };
}

/**
 * FLOWAGG_CFG_LOG_EMBEDDED_DIR=/data sets log.embedded.dir. Path segments match the schema's keys
 * case-insensitively, so camelCase keys work: FLOWAGG_CFG_ACTIVEFLOWRECORDTIMEOUT=30s. Values are YAML
 * (numbers, booleans, "[a, b]" lists, "{k: v}" mappings).
 */
function applyEnv(doc: Doc, env: NodeJS.ProcessEnv, keys: readonly ConfigKey[], origins: Origins, out: ConfigDiagnostic[]): void {
  const byName = new Map(keys.filter((k) => !k.section).map((k) => [ENV_PREFIX + k.path.join('_').toUpperCase(), k.path]));
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || raw === undefined) continue;
    const source = `environment variable ${name}`;
    const path = byName.get(name);
    if (path === undefined) {
      const near = closestKey(name, [...byName.keys()]);
      out.push(diagnostic('warning', [], `${name} names no configuration key and is ignored${near === undefined ? '' : `; did you mean ${near}?`}`, source));
      continue;
    }
    let value: unknown;
    try {
      value = parseYaml(raw);
    } catch (err) {
      out.push(diagnostic('error', path, `${JSON.stringify(raw)} is not a YAML value: ${(err as Error).message.split('\n')[0]}`, source));
      continue;
    }
    setPath(doc, path, value);
    origins.set(path, source);
  }
}

const MAX_PASSES = 8;

/** Reads and validates a configuration; never throws for a bad one, the diagnostics say what is wrong. */
export function readConfig<S extends z.ZodType>(schema: S, sources: ConfigSources = {}): ConfigResult<z.output<S>> {
  const diagnostics: ConfigDiagnostic[] = [];
  const keys = configKeys(schema);
  const { doc, origins } = readDocument(sources, diagnostics);
  applyEnv(doc, sources.env ?? process.env, keys, origins, diagnostics);
  for (const [k, v] of Object.entries(sources.overrides ?? {})) {
    setPath(doc, k.split('.'), v);
    origins.set(k.split('.'), 'command line');
  }
  if (diagnostics.some((d) => d.level === 'error')) return { ok: false, diagnostics };
  dropUnsetValues(doc, keys);

  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const result = schema.safeParse(doc, { error: configErrorMap, reportInput: true });
    const unknown = result.success ? [] : result.error.issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 0) {
      // Unknown keys are dropped and the rest parsed again: refinements run only on a clean parse.
      for (const issue of unknown) {
        const parent = getPath(doc, issue.path) as Doc;
        const known = childKeys(keys, issue.path.map(String));
        for (const key of issue.keys) {
          const near = closestKey(key, known);
          const where = [...issue.path, key];
          diagnostics.push(diagnostic('warning', where, `unknown key, ignored${near === undefined ? '' : `; did you mean ${[...issue.path, near].join('.')}?`}`, origins.of(where)));
          delete parent[key];
        }
      }
      continue;
    }
    for (const k of keys) {
      const given = k.note === undefined ? undefined : getPath(doc, k.path);
      // Antrea's chart writes some of these keys empty; an empty value asks for nothing.
      if (given !== undefined && given !== '' && !(k.emptyValues ?? []).includes(given as '' | 0)) diagnostics.push(diagnostic('notice', k.path, k.note!, origins.of(k.path)));
    }
    if (result.success) return { ok: true, config: deepFreeze(result.data), diagnostics };
    for (const issue of result.error.issues) {
      diagnostics.push(diagnostic('error', issue.path, withValue(issue.message, issue.input), origins.of(issue.path)));
    }
    return { ok: false, diagnostics };
  }
  throw new Error(`configuration: unknown keys still reported after ${MAX_PASSES} passes`);
}

/** "warning: flowColector (flowagg.yaml:3): unknown key, ignored; did you mean flowCollector?" */
export function formatDiagnostic(d: ConfigDiagnostic): string {
  const where = [d.path, d.source === undefined ? '' : `(${d.source})`].filter((s) => s !== '').join(' ');
  return `${d.level}: ${where === '' ? '' : `${where}: `}${d.message}`;
}

/**
 * Reads, validates and freezes a configuration, or throws FLOWAGG_ERR_CONFIG_INVALID listing every
 * error. Warnings and notices go to `report` (the services log them).
 */
export function loadConfig<S extends z.ZodType>(schema: S, sources: ConfigSources & { report?: (d: ConfigDiagnostic) => void } = {}): z.output<S> {
  const result = readConfig(schema, sources);
  for (const d of result.diagnostics) if (d.level !== 'error') sources.report?.(d);
  if (result.ok) return result.config;
  const errors = result.diagnostics.filter((d) => d.level === 'error');
  const where = sources.file === undefined ? 'configuration' : `configuration file ${sources.file}`;
  throw new FlowaggError(CONFIG_INVALID, `${where} is invalid:\n${errors.map((d) => `  - ${formatDiagnostic(d).slice('error: '.length)}`).join('\n')}`, {
    context: { file: sources.file, errors: errors.length },
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
