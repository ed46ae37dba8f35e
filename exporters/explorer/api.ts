// The explorer's JSON API (docs/explorer.md "API"), mounted on the service's HTTP server (the API port,
// 10348) beside /metrics and /flowrecords, so it is served, and authenticated, as they are. The views
// from the rollups answer from memory; the flow search, the flow view and the path view read the log,
// each within explorer.maxScanRecords and through the query gate.
import type { IncomingMessage } from 'node:http';
import type { TelemetryServer } from '../../lib/telemetry/http.js';
import type { DropsResponse, GraphResponse, OverviewResponse, RangeInfo } from './api-types.js';
import type { ExplorerConfig } from './config.js';
import type { Explorer } from './index.js';
import { explorerMetrics } from './metrics.js';
import { pathView, type PathDeps } from './path.js';
import { dropSeries, graph, timeSeries, top } from './queries.js';
import { intParam, oneOf, type TimeRange, timeRange } from './query-params.js';
import { QueryGate } from './query-gate.js';
import { DIMENSION_NAMES, type Dimension } from './rollups.js';
import { flowDetail, searchFlows, type SearchDeps } from './search.js';

export const API_PREFIX = '/api/v1';
/** Series stacked in a chart; the rest is "other". */
const STACKS = 8;

export interface ApiDeps {
  /** The explorer running now (a supervisor replaces it after a failure). */
  readonly explorer: () => Explorer;
  readonly config: ExplorerConfig;
  /** flows.processed, for the flow search and the flow view. */
  readonly processed: SearchDeps;
  /** flows.raw, for the path view. */
  readonly raw: PathDeps;
  readonly now?: () => number;
}

export function mountExplorerApi(http: Pick<TelemetryServer, 'addJsonRoute'>, deps: ApiDeps): void {
  const now = deps.now ?? Date.now;
  const gate = new QueryGate({ total: deps.config.maxQueries, perClient: deps.config.maxQueriesPerClient });
  const client = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  /** The range asked for, the tier that answers it and its buckets. */
  const bucketsOf = (url: URL) => {
    const t = now();
    const range = timeRange(url, t, deps.config.horizon);
    const tier = deps.explorer().rollups.tierFor(range.from, range.to, t);
    const info: RangeInfo = { ...range, bucketMs: tier.spec.bucketMs };
    return { range: info, buckets: tier.range(range.from, range.to) };
  };
  /** The log keeps what its retention keeps, beyond the horizon. */
  const logRange = (url: URL): TimeRange => timeRange(url, now(), Number.MAX_SAFE_INTEGER);
  const route = (name: string, answer: (url: URL, req: IncomingMessage) => unknown) => {
    http.addJsonRoute(`${API_PREFIX}/${name}`, async (url, req) => {
      const body = await answer(url, req);
      explorerMetrics.queries.inc({ view: name });
      return body;
    });
  };

  route('status', () => deps.explorer().status());
  route('overview', (url): OverviewResponse => {
    const { range, buckets } = bucketsOf(url);
    const limit = intParam(url, 'limit', 1, 1000, 10);
    return {
      range,
      traffic: timeSeries(buckets, range.bucketMs, oneOf(url, 'by', ['namespace', 'node'], 'namespace'), STACKS),
      top: {
        podPairs: top(buckets, 'podPair', limit),
        namespacePairs: top(buckets, 'namespacePair', limit),
        services: top(buckets, 'service', limit),
        external: top(buckets, 'external', limit),
      },
    };
  });
  route('top', (url) => {
    const { range, buckets } = bucketsOf(url);
    const dimension: Dimension = oneOf(url, 'dimension', DIMENSION_NAMES, 'podPair');
    return { range, dimension, rows: top(buckets, dimension, intParam(url, 'limit', 1, 10_000, 10)) };
  });
  route('graph', (url): GraphResponse => {
    const { range, buckets } = bucketsOf(url);
    const expanded = new Set((url.searchParams.get('expand') ?? '').split(',').filter((x) => x !== ''));
    return { range, ...graph(buckets, expanded, intParam(url, 'maxEdges', 1, 2000, 200)) };
  });
  route('drops', (url): DropsResponse => {
    const { range, buckets } = bucketsOf(url);
    const limit = intParam(url, 'limit', 1, 1000, 50);
    return { range, drops: dropSeries(buckets, range.bucketMs, STACKS), rules: top(buckets, 'policy', limit), namespaces: top(buckets, 'deniedNamespace', limit) };
  });
  route('flows', (url, req) => {
    const range = logRange(url);
    return gate.run(client(req), async () => ({ range: { ...range, bucketMs: 0 }, ...(await searchFlows(deps.processed, url, range)) }));
  });
  route('flow', (url, req) => gate.run(client(req), () => flowDetail(deps.processed, url, logRange(url))));
  route('path', (url, req) => {
    const range = logRange(url);
    return gate.run(client(req), async () => ({ range: { ...range, bucketMs: 0 }, ...(await pathView(deps.raw, url, range)) }));
  });
}
