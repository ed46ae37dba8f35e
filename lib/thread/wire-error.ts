// Errors across a thread boundary. Structured clone keeps an Error's message and stack but not its class
// or own fields, so a FlowaggError would arrive as a plain Error and `isFlowaggError(e, CODE)` (how
// callers decide to retry, or that a producer was fenced) would stop working on the other side.
import { type ErrorCode, type ErrorContext, FlowaggError, errorMessage } from '../errors.js';

export type WireError =
  | { readonly kind: 'flowagg'; readonly code: ErrorCode; readonly message: string; readonly retriable: boolean; readonly context: ErrorContext; readonly stack?: string }
  | { readonly kind: 'other'; readonly message: string; readonly stack?: string };

export function toWire(err: unknown): WireError {
  const stack = err instanceof Error ? err.stack : undefined;
  if (err instanceof FlowaggError) return { kind: 'flowagg', code: err.code, message: err.message, retriable: err.retriable, context: err.context, ...(stack && { stack }) };
  return { kind: 'other', message: errorMessage(err), ...(stack && { stack }) };
}

export function fromWire(wire: WireError): Error {
  const err = wire.kind === 'flowagg' ? new FlowaggError(wire.code, wire.message, { retriable: wire.retriable, context: wire.context }) : new Error(wire.message);
  if (wire.stack !== undefined) err.stack = wire.stack;
  return err;
}
