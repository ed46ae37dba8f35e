// What a configuration key says about itself beyond its type, kept in the schema (zod's global
// registry) so that the loader, hot reload, `flowagg config defaults` and docs/configuration.md all read
// one source: its description, how a change is applied while running, and a note shown when it is set.
import type { z } from 'zod';

/**
 * How a change to a key is applied while the service runs (Antrea's hot reload, reference §1):
 *   live      the new value is applied; subscribers of the key are notified (an exporter whose
 *             section changed is replaced, recordContents.podLabels applies to the next record)
 *   restart   the running value is kept and the change is logged as needing a restart
 *   refused   the running value is kept and the change is logged as an error (Antrea's `mode`)
 * A key without a policy inherits its nearest ancestor's, and `restart` at the top.
 */
export type ReloadPolicy = 'live' | 'restart' | 'refused';

/** How a value is written in YAML, when it is not written as it is held (durations in ms, sizes in bytes). */
export type ValueKind = 'duration' | 'size';

declare module 'zod/v4/core' {
  interface GlobalMeta {
    reload?: ReloadPolicy;
    valueKind?: ValueKind;
    /** Replaces the type shown in docs/configuration.md for types the walker cannot name (unions with transforms). */
    typeLabel?: string;
    /** Said (as a notice, not an error) whenever the key is set: a key accepted for compatibility that has no effect. */
    note?: string;
    /** Values that mean "the default", as Antrea's defaulting code takes them (empty.ts). */
    emptyValues?: readonly ('' | 0)[];
  }
}

export function reloadable<T extends z.ZodType>(schema: T, reload: ReloadPolicy): T {
  return schema.meta({ ...schema.meta(), reload }) as T;
}
