// Loads flowagg's configuration: a YAML file (Antrea's flow-aggregator.conf keys are accepted as they
// are), then FLOWAGG_CFG_<PATH> environment overrides, validated against one strict schema. Every
// problem is reported at once, each with its path, so a person can fix the file in one pass.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type z } from 'zod';
import { FlowaggError } from '../errors.js';

export const CONFIG_INVALID = 'FLOWAGG_ERR_CONFIG_INVALID';

/**
 * FLOWAGG_CFG_LOG_EMBEDDED_DIR=/data sets log.embedded.dir. Path segments are matched against the keys
 * that exist in the schema case-insensitively, so camelCase keys work: FLOWAGG_CFG_ACTIVEFLOWRECORDTIMEOUT=30s.
 * Values are parsed as YAML scalars (numbers, booleans) or flow sequences ("[a, b]").
 */
export function applyEnvOverrides(doc: Record<string, unknown>, env: NodeJS.ProcessEnv, knownPaths: readonly string[]): Record<string, unknown> {
  const byUpper = new Map(knownPaths.map((p) => [p.replaceAll('.', '_').toUpperCase(), p]));
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('FLOWAGG_CFG_') || raw === undefined) continue;
    const path = byUpper.get(name.slice('FLOWAGG_CFG_'.length));
    if (path === undefined) {
      throw new FlowaggError(CONFIG_INVALID, `environment variable ${name} names no configuration key`, { context: { variable: name } });
    }
    setPath(doc, path.split('.'), parseYaml(raw) as unknown);
  }
  return doc;
}

function setPath(doc: Record<string, unknown>, path: string[], value: unknown): void {
  let node = doc;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** Every leaf key path of a zod object schema, for env overrides. */
export function schemaPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = (schema as unknown as { _zod: { def: { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType } } })._zod.def;
  if ((def.type === 'default' || def.type === 'optional' || def.type === 'prefault') && def.innerType) return schemaPaths(def.innerType, prefix);
  if (def.type !== 'object' || def.shape === undefined) return prefix === '' ? [] : [prefix];
  return Object.entries(def.shape).flatMap(([k, v]) => schemaPaths(v, prefix === '' ? k : `${prefix}.${k}`));
}

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `  - ${i.path.length > 0 ? i.path.join('.') : '(top level)'}: ${i.message}`)
    .join('\n');
}

export function loadConfig<S extends z.ZodType>(
  schema: S,
  opts: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Record<string, unknown> } = {},
): z.output<S> {
  let doc: Record<string, unknown> = {};
  if (opts.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.file, 'utf8');
    } catch (err) {
      throw new FlowaggError(CONFIG_INVALID, `cannot read configuration file ${opts.file}: ${(err as Error).message}`, { cause: err });
    }
    try {
      doc = (parseYaml(text) as Record<string, unknown> | null) ?? {};
    } catch (err) {
      throw new FlowaggError(CONFIG_INVALID, `configuration file ${opts.file} is not valid YAML: ${(err as Error).message}`, { cause: err });
    }
  }
  doc = applyEnvOverrides(doc, opts.env ?? process.env, schemaPaths(schema));
  for (const [k, v] of Object.entries(opts.overrides ?? {})) setPath(doc, k.split('.'), v);
  const result = schema.safeParse(doc);
  if (!result.success) {
    const where = opts.file === undefined ? 'configuration' : `configuration file ${opts.file}`;
    throw new FlowaggError(CONFIG_INVALID, `${where} is invalid:\n${formatIssues(result.error)}`);
  }
  return deepFreeze(result.data);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
