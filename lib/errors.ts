// The one error type of flowagg. Every failure a caller may act on carries a stable code
// (FLOWAGG_ERR_<AREA>_<WHAT>), whether retrying can help, and the context that locates it
// (exporter, observation domain, template id, byte offset, topic, partition, ...).
// Modules declare their own codes next to their code (see lib/ipfix/errors.ts), so that the
// set of codes grows with the modules without one file every change touches.

export type ErrorCode = `FLOWAGG_ERR_${string}`;

export type ErrorContext = Readonly<Record<string, string | number | bigint | boolean | undefined>>;

export class FlowaggError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly retriable: boolean;
  readonly context: ErrorContext;

  constructor(code: C, message: string, opts: { context?: ErrorContext; retriable?: boolean; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FlowaggError';
    this.code = code;
    this.retriable = opts.retriable ?? false;
    this.context = opts.context ?? {};
  }
}

export function isFlowaggError(err: unknown, code?: ErrorCode): err is FlowaggError {
  return err instanceof FlowaggError && (code === undefined || err.code === code);
}

/** The message of anything thrown, for logs and CLI output. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
