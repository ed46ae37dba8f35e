// The JSON of the explorer's API (/api/v1/…, docs/explorer.md): what the server sends and the page reads.
// Types only, free of Node's, so that the page (page/, built for the browser) imports them too.

/** The range a response covers, ms since the epoch, and the bucket size its figures come in. */
export interface RangeInfo {
  readonly from: number;
  readonly to: number;
  readonly bucketMs: number;
}

export interface Series {
  readonly key: string;
  readonly bytes: number[];
  readonly packets: number[];
}

export interface TimeSeriesView {
  readonly bucketMs: number;
  /** Bucket starts. */
  readonly times: number[];
  readonly total: Series;
  /** The heaviest keys, then "other". */
  readonly series: Series[];
}

export interface Ranked {
  /** The key's parts: [namespace], [source, destination], [direction, policy, rule, action]. */
  readonly key: string[];
  readonly bytes: number;
  readonly packets: number;
  /** Records of flows.processed (exports of flows) counted. */
  readonly records: number;
  /** The figures may be above the truth by up to this many bytes (0: exact). */
  readonly error: number;
}

export interface OverviewResponse {
  readonly range: RangeInfo;
  readonly traffic: TimeSeriesView;
  readonly top: {
    readonly podPairs: Ranked[];
    readonly namespacePairs: Ranked[];
    readonly services: Ranked[];
    readonly external: Ranked[];
  };
}

export interface GraphNode {
  /** `ns`, `ns/workload` or `ns/workload/pod`. */
  readonly id: string;
  readonly namespace: string;
  /** 0 namespace, 1 workload, 2 Pod. */
  readonly depth: number;
  bytesOut: number;
  bytesIn: number;
}

export interface GraphEdge {
  readonly source: string;
  readonly target: string;
  bytes: number;
  packets: number;
  error: number;
}

export interface GraphView {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
  /** More edges than the response holds (the lightest were left out). */
  readonly truncated: boolean;
}

export interface GraphResponse extends GraphView {
  readonly range: RangeInfo;
}

export interface DropsResponse {
  readonly range: RangeInfo;
  readonly drops: TimeSeriesView;
  /** key: [direction, policy, rule, action]. */
  readonly rules: Ranked[];
  readonly namespaces: Ranked[];
}

/** One record of flows.processed, as a row of the flow search. */
export interface FlowRow {
  readonly partition: number;
  readonly offset: number;
  /** Flow end of the export, ms. */
  readonly time: number;
  readonly start: number;
  readonly source: string;
  readonly destination: string;
  readonly sourceAddress: string;
  readonly destinationAddress: string;
  readonly sourcePort: number;
  readonly destinationPort: number;
  readonly protocol: number;
  readonly bytes: number;
  readonly packets: number;
  readonly flowType: number;
  readonly sourceNode: string;
  readonly destinationNode: string;
  readonly service: string;
  /** `direction policy rule action` when a policy denied it, else "". */
  readonly denial: string;
  /** The proxy SNAT address and port of a flow from outside through a NodePort ("" when none). */
  readonly snat: string;
}

/** What a log scan covered: every record of the range, or, past the query's budget, the newest part of it. */
export interface ScanInfo {
  readonly scanned: number;
  /** False when the range held more records than the budget: only those from `coveredFrom` on were read. */
  readonly complete: boolean;
  readonly coveredFrom: number;
}

export interface SearchResponse {
  readonly range: RangeInfo;
  readonly scan: ScanInfo;
  /** Rows that matched in what was scanned. */
  readonly matched: number;
  readonly page: number;
  readonly pageSize: number;
  readonly rows: FlowRow[];
}

export interface FlowResponse {
  /** Every field of the record, as `flowagg decode` names them. */
  readonly record: Record<string, unknown>;
  readonly row: FlowRow;
  /** Every export of the same flow (same flow key) in the range, oldest first. */
  readonly exports: FlowRow[];
  readonly scan: ScanInfo;
}

/** An exporter that reported a flow: an Antrea Node, a hypervisor, a router. */
export interface ObservationPoint {
  readonly exporter: string;
  readonly observationDomainId: number;
  /** The Node the exporter says it is (the reporting side's Node name), or "". */
  readonly node: string;
  /** `source` (the source Pod's Node), `destination`, `both` (intra-Node) or `other` (not an Antrea Node). */
  readonly side: 'source' | 'destination' | 'both' | 'other';
  readonly records: number;
  readonly bytes: number;
  readonly packets: number;
  readonly first: number;
  readonly last: number;
}

export interface PathResponse {
  readonly range: RangeInfo;
  readonly tuple: string;
  readonly scan: ScanInfo;
  readonly points: ObservationPoint[];
}

export interface StatusResponse {
  readonly horizonMs: number;
  readonly memory: { readonly usedBytes: number; readonly ceilingBytes: number };
  readonly records: number;
  /** Records outside every tier (older than the horizon, or far ahead of the clock). */
  readonly outside: number;
  readonly rebuilding: { readonly done: number; readonly total: number } | undefined;
  readonly tiers: { readonly bucketMs: number; readonly horizonMs: number; readonly buckets: number }[];
}
