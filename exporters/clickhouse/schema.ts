// The Antrea/Theia `flows` table and its three views (reference §8; Antrea's e2e flow-visibility schema),
// written for what the server has: TTL only from 19.6 (Debian's 18.16 has none: rows are then kept until
// someone drops partitions), and a deduplication window for plain MergeTree tables only where the server
// knows `non_replicated_deduplication_window` (it makes the insert token work). On servers without insert
// tokens the table gets one more column, flowaggBatchId, that lets the exporter see whether a batch is
// already in (deduplication.ts). Pure: the capabilities come from the server (server.ts).
import { CLICKHOUSE_COLUMNS } from '../row/columns.js';

export interface ServerCapabilities {
  readonly version: string;
  /** MergeTree TTL expressions (19.6). */
  readonly ttl: boolean;
  /** The insert_deduplication_token query setting. */
  readonly insertDeduplicationToken: boolean;
  /** The non_replicated_deduplication_window MergeTree setting. */
  readonly nonReplicatedDeduplication: boolean;
}

export interface SchemaOptions {
  readonly database: string;
  /** Seconds; 0 for no TTL. */
  readonly ttlSeconds: number;
}

/** The column that names each row's batch, on servers without insert tokens (Theia's readers ignore it). */
export const BATCH_COLUMN = 'flowaggBatchId';

/** Blocks whose tokens a plain MergeTree table remembers: far more than the batches a restart redelivers. */
export const DEDUPLICATION_WINDOW = 1000;

const quote = (name: string) => `\`${name}\``;

function tableSettings(caps: ServerCapabilities, ttlSeconds: number): { ttl: string; settings: string[] } {
  const useTtl = caps.ttl && ttlSeconds > 0;
  const settings = useTtl ? [`merge_with_ttl_timeout = ${Math.min(ttlSeconds, 14_400)}`] : [];
  return { ttl: useTtl ? `TTL timeInserted + INTERVAL ${ttlSeconds} SECOND` : '', settings };
}

export function flowsTableDdl(caps: ServerCapabilities, opts: SchemaOptions): string {
  const columns: string[] = ['timeInserted DateTime DEFAULT now()'];
  for (const c of CLICKHOUSE_COLUMNS) {
    columns.push(`${c.name} ${c.type}`);
    if (c.name === 'clusterUUID') columns.push('trusted UInt8 DEFAULT 0');
  }
  if (!caps.insertDeduplicationToken) columns.push(`${BATCH_COLUMN} String DEFAULT ''`);
  const { ttl, settings } = tableSettings(caps, opts.ttlSeconds);
  if (caps.nonReplicatedDeduplication) settings.push(`non_replicated_deduplication_window = ${DEDUPLICATION_WINDOW}`);
  return [
    `CREATE TABLE IF NOT EXISTS ${quote(opts.database)}.flows (`,
    columns.map((c) => `  ${c}`).join(',\n'),
    ') ENGINE = MergeTree',
    'ORDER BY (timeInserted, flowEndSeconds)',
    ttl,
    settings.length > 0 ? `SETTINGS ${settings.join(', ')}` : '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

const TIMES = ['timeInserted', 'flowEndSeconds', 'flowEndSecondsFromSourceNode', 'flowEndSecondsFromDestinationNode'];

interface ViewSpec {
  readonly name: string;
  readonly keys: readonly string[];
  readonly sums: readonly string[];
}

const THROUGHPUTS = ['throughput', 'reverseThroughput', 'throughputFromSourceNode', 'throughputFromDestinationNode'];
const ALL_THROUGHPUTS = ['throughput', 'reverseThroughput', 'throughputFromSourceNode', 'reverseThroughputFromSourceNode', 'throughputFromDestinationNode', 'reverseThroughputFromDestinationNode'];

export const VIEWS: readonly ViewSpec[] = [
  {
    name: 'flows_pod_view',
    keys: [...TIMES, 'sourcePodName', 'destinationPodName', 'destinationIP', 'destinationServicePort', 'destinationServicePortName', 'flowType', 'sourcePodNamespace', 'destinationPodNamespace', 'sourceTransportPort', 'destinationTransportPort'],
    sums: ['octetDeltaCount', 'reverseOctetDeltaCount', ...THROUGHPUTS],
  },
  {
    name: 'flows_node_view',
    keys: [...TIMES, 'sourceNodeName', 'destinationNodeName', 'sourcePodNamespace', 'destinationPodNamespace'],
    sums: ['octetDeltaCount', 'reverseOctetDeltaCount', ...ALL_THROUGHPUTS],
  },
  {
    name: 'flows_policy_view',
    keys: [
      ...TIMES, 'egressNetworkPolicyName', 'egressNetworkPolicyNamespace', 'egressNetworkPolicyRuleAction', 'ingressNetworkPolicyName',
      'ingressNetworkPolicyNamespace', 'ingressNetworkPolicyRuleAction', 'sourcePodName', 'sourceTransportPort', 'sourcePodNamespace',
      'destinationPodName', 'destinationTransportPort', 'destinationPodNamespace', 'destinationServicePort', 'destinationServicePortName', 'destinationIP',
    ],
    sums: ['octetDeltaCount', 'reverseOctetDeltaCount', ...ALL_THROUGHPUTS],
  },
];

export function viewDdl(view: ViewSpec, caps: ServerCapabilities, opts: SchemaOptions): string {
  const { ttl, settings } = tableSettings(caps, opts.ttlSeconds);
  const keys = view.keys.join(', ');
  return [
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${quote(opts.database)}.${view.name}`,
    'ENGINE = SummingMergeTree',
    `ORDER BY (${keys})`,
    ttl,
    settings.length > 0 ? `SETTINGS ${settings.join(', ')}` : '',
    'POPULATE',
    `AS SELECT ${keys}, ${view.sums.map((s) => `sum(${s}) AS ${s}`).join(', ')}`,
    `FROM ${quote(opts.database)}.flows`,
    `GROUP BY ${keys}`,
  ]
    .filter((l) => l !== '')
    .join('\n');
}

/** The statements that create the schema, in order. */
export function schemaDdl(caps: ServerCapabilities, opts: SchemaOptions): string[] {
  return [
    ...(opts.database === 'default' ? [] : [`CREATE DATABASE IF NOT EXISTS ${quote(opts.database)}`]),
    flowsTableDdl(caps, opts),
    ...VIEWS.map((v) => viewDdl(v, caps, opts)),
  ];
}
