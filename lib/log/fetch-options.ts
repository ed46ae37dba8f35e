// The arguments of Reader.fetch (lib/log/types.ts), checked the same way by both backends.
import { FlowaggError } from '../errors.js';
import { LOG_CLOSED, LOG_INVALID_ARGUMENT } from './errors.js';
import type { FetchOptions, Offset, TopicPartition } from './types.js';

export const DEFAULT_FETCH_RECORDS = 10_000;

/** Throws for a closed reader or arguments that can never be valid; returns maxRecords. */
export function checkFetch(closed: boolean, tp: TopicPartition, offset: Offset, opts: FetchOptions): number {
  if (closed) throw new FlowaggError(LOG_CLOSED, `reader.fetch(${tp.topic}-${tp.partition}): the reader is closed`, { context: { ...tp } });
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new FlowaggError(LOG_INVALID_ARGUMENT, `reader.fetch: offset ${offset} of ${tp.topic}-${tp.partition} is not a non-negative integer`, { context: { ...tp, offset } });
  }
  const maxRecords = opts.maxRecords ?? DEFAULT_FETCH_RECORDS;
  if (!Number.isInteger(maxRecords) || maxRecords < 1) throw new FlowaggError(LOG_INVALID_ARGUMENT, `reader.fetch: maxRecords ${maxRecords} is not a positive integer`);
  return maxRecords;
}
