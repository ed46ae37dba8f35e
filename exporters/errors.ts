// Error codes of the exporters and their runner (FLOWAGG_ERR_EXPORT_*). An exporter's own codes (its
// configuration, its destination) sit next to it, e.g. exporters/ipfix/errors.ts.
import { FlowaggError, isFlowaggError } from '../lib/errors.js';

/** A runner or exporter method called in a state that does not allow it. */
export const EXPORT_STATE = 'FLOWAGG_ERR_EXPORT_STATE';
/** `flowagg export KIND` or an enabled section names an exporter kind no module registered. */
export const EXPORT_UNKNOWN_KIND = 'FLOWAGG_ERR_EXPORT_UNKNOWN_KIND';
/** The consumer delivered a batch of a partition the runner has no worker for (a bug): delivered again, never skipped. */
export const EXPORT_NO_WORKER = 'FLOWAGG_ERR_EXPORT_NO_WORKER';

/**
 * Marks a failed delivery as having reached none of the batch's records (connection refused, say), so
 * that the retry is not counted as a possible duplicate. Any other rejection may have delivered part.
 */
export function notDelivered(err: FlowaggError): FlowaggError {
  return new FlowaggError(err.code, err.message, { context: { ...err.context, delivered: 'none' }, retriable: err.retriable, cause: err.cause });
}

export function deliveredNothing(err: unknown): boolean {
  return isFlowaggError(err) && err.context.delivered === 'none';
}
