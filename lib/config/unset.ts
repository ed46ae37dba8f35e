// A key written with no value (`podLabels:`, YAML null) is left out, so it takes its default: this is how
// Antrea's Go YAML decoding reads it (the zero value, which its defaulting code replaces), and how its Helm
// chart renders a value nobody set. Keys whose schema takes null as a value (log.retention.bytes: null, no
// limit) keep it.
import type { ConfigKey } from './keys.js';

/** Deletes, in place, every null of `doc` at a key that does not take null. */
export function dropUnsetValues(doc: Record<string, unknown>, keys: readonly ConfigKey[]): void {
  for (const k of keys) {
    if (k.nullable) continue;
    let parent: unknown = doc;
    for (const p of k.path.slice(0, -1)) parent = typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[p] : undefined;
    if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) continue;
    const leaf = k.path[k.path.length - 1]!;
    const node = parent as Record<string, unknown>;
    if (Object.hasOwn(node, leaf) && node[leaf] === null) delete node[leaf];
  }
}
