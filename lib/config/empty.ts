// Antrea's "empty or zero means the default" (SetConfigDefaults in its config package): for the keys it
// defaults that way, a file that writes "" (or 0 for a number) gets the default, as if the key were left
// out; Antrea's Helm chart renders unset values so. A key written with no value at all (YAML null) is left
// out for every key, in the loader (unset.ts).
import { z } from 'zod';

/** The values Antrea's defaulting code replaces: "" for strings and durations, 0 for counts and sizes. */
export type EmptyValue = '' | 0;

/**
 * `schema` (which carries the default) taking `empty` as "not given". Durations take only "": Antrea
 * parses "0s" and its checks see the zero (a timeout below 1 s is rounded up, a commit interval refused).
 */
export function emptyIsDefault<T extends z.ZodType>(schema: T, empty: readonly EmptyValue[] = ['']) {
  return z.preprocess((v) => (empty.includes(v as EmptyValue) ? undefined : v), schema).meta({ emptyValues: [...empty] });
}
