// The query parameters every view of the API shares: the time range, numbers within bounds. A parameter
// that cannot be used is a QueryError, which the HTTP server answers with 400 and its message.

/** A query that cannot be answered as asked: the HTTP server answers 400 with its message. */
export class QueryError extends Error {
  readonly status = 400;
}

/** What a query names is not there (a record removed by retention): 404. */
export class NotFoundError extends Error {
  readonly status = 404;
}

/** Too many log-reading queries at once: 429. */
export class BusyError extends Error {
  readonly status = 429;
}

export interface TimeRange {
  readonly from: number;
  readonly to: number;
}

const DEFAULT_RANGE_MS = 3_600_000;

/** ms since the epoch, or an ISO 8601 date. */
function time(url: URL, name: string): number | undefined {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return undefined;
  const t = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(t)) throw new QueryError(`${name}: "${text}" is neither milliseconds since the epoch nor an ISO 8601 date`);
  return t;
}

/** ?from=&to= (default: the last hour up to now); at most `horizonMs` long and not reaching further back than it. */
export function timeRange(url: URL, now: number, horizonMs: number): TimeRange {
  const to = time(url, 'to') ?? now;
  const from = time(url, 'from') ?? to - DEFAULT_RANGE_MS;
  if (from >= to) throw new QueryError(`from (${new Date(from).toISOString()}) is not before to (${new Date(to).toISOString()})`);
  return { from: Math.max(from, now - horizonMs), to };
}

export function intParam(url: URL, name: string, min: number, max: number, fallback: number): number {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new QueryError(`${name}: "${text}" is not an integer in ${min}..${max}`);
  return n;
}

export function oneOf<T extends string>(url: URL, name: string, values: readonly T[], fallback: T): T {
  const text = url.searchParams.get(name);
  if (text === null || text === '') return fallback;
  if (!(values as readonly string[]).includes(text)) throw new QueryError(`${name}: "${text}" is not one of ${values.join(', ')}`);
  return text as T;
}
