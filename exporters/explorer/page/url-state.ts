// The page's whole state is in the URL's fragment, so a view can be shared and reloaded:
//   #/<view>?range=15m&by=node            the last 15 minutes, live
//   #/flows?from=<ms>&to=<ms>&namespace=shop   an absolute range
export const VIEWS = ['overview', 'graph', 'drops', 'flows', 'flow', 'path'] as const;
export type View = (typeof VIEWS)[number];

export const RANGES: Readonly<Record<string, number>> = { '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 };
export const DEFAULT_RANGE = '15m';

export interface PageState {
  readonly view: View;
  readonly params: URLSearchParams;
}

export function readState(hash: string): PageState {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const view = (VIEWS as readonly string[]).includes(path) ? (path as View) : 'overview';
  return { view, params: new URLSearchParams(query) };
}

/** The fragment of a view with parameters; empty values are left out. */
export function href(view: View, params: URLSearchParams | Record<string, string | number | undefined>): string {
  const p = params instanceof URLSearchParams ? new URLSearchParams(params) : new URLSearchParams();
  if (!(params instanceof URLSearchParams)) for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  for (const [k, v] of [...p]) if (v === '') p.delete(k);
  const query = p.toString();
  return `#/${view}${query === '' ? '' : `?${query}`}`;
}

/** The same parameters with some changed (undefined removes one). */
export function withParams(params: URLSearchParams, changes: Record<string, string | number | undefined>): URLSearchParams {
  const p = new URLSearchParams(params);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') p.delete(k);
    else p.set(k, String(v));
  }
  return p;
}

export interface Range {
  readonly from: number;
  readonly to: number;
  /** A "last N minutes" range follows the clock: the views refresh. */
  readonly live: boolean;
}

export function rangeOf(params: URLSearchParams, now: number): Range {
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  if (params.has('from') && params.has('to') && Number.isFinite(from) && Number.isFinite(to) && from < to) return { from, to, live: false };
  const span = RANGES[params.get('range') ?? DEFAULT_RANGE] ?? RANGES[DEFAULT_RANGE]!;
  return { from: now - span, to: now, live: true };
}

/** The time range's parameters, to carry from one view to the next. */
export function rangeParams(params: URLSearchParams): Record<string, string | undefined> {
  return { range: params.get('range') ?? undefined, from: params.get('from') ?? undefined, to: params.get('to') ?? undefined };
}
