// The configuration file every flowagg process of a chaos run reads, as a ConfigMap: short flow timeouts,
// UDP and TCP collectors, gRPC with the run's certificates, and the three exporters (IPFIX to the test's
// collector, ClickHouse through the test's proxy, the flow log as JSON lines). Only the log differs between
// the deployments: Kafka (deployment.ts) or the embedded log of one `flowagg run` (embedded-deployment.ts).
import type { ChaosMode } from './profile.js';
import type { Sinks } from './sinks.js';

export const RAW_PARTITIONS = 6;
export const PROCESSED_PARTITIONS = 4;

export interface Topics {
  readonly flowsRaw: string;
  readonly flowsProcessed: string;
  readonly processorState: string;
  readonly templates: string;
  readonly exportBatches: string;
}

/** The `log:` section's backend part: `backend: …` and its own keys, each line indented by two. */
export function configYaml(o: { mode: ChaosMode; backend: string; topics: Topics; processorGroup: string; tlsDir: string; sinks: Sinks }): string {
  return `mode: ${o.mode}
activeFlowRecordTimeout: 3s
inactiveFlowRecordTimeout: 4s
aggregatorTransportProtocol: [udp, tcp]
log:
${o.backend}
  topics:
    flowsRaw: ${o.topics.flowsRaw}
    flowsRawPartitions: ${RAW_PARTITIONS}
    flowsProcessed: ${o.topics.flowsProcessed}
    flowsProcessedPartitions: ${PROCESSED_PARTITIONS}
    processorState: ${o.topics.processorState}
    templates: ${o.topics.templates}
    exportBatches: ${o.topics.exportBatches}
ingest:
  host: 127.0.0.1
  tls:
    mode: directory
    dir: ${o.tlsDir}
processor:
  groupId: ${o.processorGroup}
  allowedLateness: 5s
  sourceIdleTimeout: 5s
kubernetes:
  enable: false
flowCollector:
  enable: true
  address: 127.0.0.1:${o.sinks.collector.port}:tcp
  batchDelay: 500ms
clickHouse:
  enable: true
  databaseURL: http://127.0.0.1:${o.sinks.clickhouse.port}
  database: ${o.sinks.database}
  commitInterval: 1s
flowLogger:
  enable: true
  path: ${o.sinks.flowLog}
  recordFormat: JSON
  compress: false
  maxSize: 1024
apiServer:
  bindAddress: 127.0.0.1
`;
}
