// The configuration as people read it: `flowagg config defaults` (every key with its default, as YAML
// that loads back, each key preceded by its description) and docs/configuration.md (every key, its
// type, default, reload policy and description). Both are rendered from the schema, never written by hand.
import { Document, isMap, isPair, isScalar, type Node } from 'yaml';
import type { z } from 'zod';
import { type ConfigKey, configKeys } from './keys.js';
import { formatDuration, formatSize } from './types.js';

/** A held value as it is written: durations and sizes with their unit. */
export function displayValue(key: Pick<ConfigKey, 'valueKind'>, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  if (key.valueKind === 'duration') return formatDuration(value);
  if (key.valueKind === 'size') return formatSize(value);
  return value;
}

function withDisplayValues(keys: readonly ConfigKey[], config: unknown): unknown {
  const out = structuredClone(config) as Record<string, unknown>;
  for (const k of keys) {
    if (k.valueKind === undefined) continue;
    const parent = k.path.slice(0, -1).reduce<unknown>((n, p) => (typeof n === 'object' && n !== null ? (n as Record<string, unknown>)[p] : undefined), out);
    if (typeof parent === 'object' && parent !== null) {
      const leaf = k.path[k.path.length - 1]!;
      const obj = parent as Record<string, unknown>;
      if (obj[leaf] !== undefined) obj[leaf] = displayValue(k, obj[leaf]);
    }
  }
  return out;
}

function wrap(text: string, width = 96): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ` ${l}`).join('\n');
}

/** Every key with its default, as YAML with each key's description above it. */
export function defaultsYaml(schema: z.ZodType): string {
  const keys = configKeys(schema);
  const description = new Map(keys.map((k) => [k.path.join('.'), k.description]));
  const config = schema.parse({});
  const doc = new Document(withDisplayValues(keys, config));
  const annotate = (node: Node | null, prefix: readonly string[]) => {
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const path = [...prefix, String(pair.key.value)];
      const text = description.get(path.join('.'));
      if (text !== undefined) pair.key.commentBefore = wrap(text);
      annotate(pair.value as Node | null, path);
    }
  };
  annotate(doc.contents, []);
  return doc.toString({ lineWidth: 0 });
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function defaultCell(k: ConfigKey): string {
  if (k.default === undefined) return '';
  const v = displayValue(k, k.default.value);
  return `\`${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}\``;
}

/** The key's description, and which values mean its default as in Antrea (empty.ts). */
function descriptionCell(k: ConfigKey): string {
  const empty = k.emptyValues?.map((v) => `\`${JSON.stringify(v)}\``).join(' or ');
  return cell([k.description ?? '', empty === undefined ? '' : `${empty} means the default, as in Antrea.`].filter((t) => t !== '').join(' '));
}

function table(keys: readonly ConfigKey[]): string[] {
  return [
    '| key | type | default | on change | description |',
    '|---|---|---|---|---|',
    ...keys.map((k) => `| \`${k.path.join('.')}\` | ${cell(k.type)} | ${defaultCell(k)} | ${k.reload ?? ''} | ${descriptionCell(k)} |`),
  ];
}

/**
 * Markdown reference of every key: the top-level values first, then one table per section. `intro` is
 * the hand-written part above the tables; the reload column is empty where a key inherits its section's
 * policy (restart at the top).
 */
export function configurationMarkdown(schema: z.ZodType, intro: string): string {
  const keys = configKeys(schema);
  const top = keys.filter((k) => k.path.length === 1 && !k.section);
  const sections = keys.filter((k) => k.path.length === 1 && k.section);
  const out = [intro.trimEnd(), '', '## Top-level keys', '', ...table(top)];
  for (const s of sections) {
    const name = s.path[0]!;
    out.push('', `## \`${name}\``, '');
    if (s.description !== undefined) out.push(s.description, '');
    if (s.reload !== undefined) out.push(`On change: ${s.reload}.`, '');
    out.push(...table(keys.filter((k) => k.path[0] === name && k.path.length > 1 && (!k.section || k.description !== undefined))));
  }
  return `${out.join('\n')}\n`;
}
