// Antrea's flow-aggregator.conf keys (reference §3) that flowagg accepts before the service they
// configure is in the build, so that an Antrea file loads unchanged. Each is accepted as it is, with a
// notice that it has no effect yet, and already carries Antrea's reload policy. A service's own section
// replaces its placeholder simply by defining the key: withAntreaKeys fills in only the keys a
// configuration does not define itself.
import { z } from 'zod';
import { emptyIsDefault } from './empty.js';
import type { ReloadPolicy } from './meta.js';

function pending(service: string, description: string, reload: ReloadPolicy) {
  return z.unknown().optional().meta({
    description,
    reload,
    typeLabel: `Antrea's (${service} not built yet)`,
    note: `accepted as Antrea's key; ${service} is not in this build yet, so it has no effect`,
  });
}

export const antreaPendingShape = {
  mode: pending('the processor', 'Aggregate (correlate the two halves of inter-Node flows) or Proxy (forward each record with enrichment). A change while running is refused.', 'refused'),
  flowCollector: pending('the IPFIX exporter', 'Export to an external IPFIX (or JSON) collector: enable, address, observationDomainID, recordFormat, templateRefreshTimeout, maxIPFIXMsgSize, tls, includeK8sNames, includeK8sUIDs. A change replaces the exporter.', 'live'),
  clickHouse: pending('the ClickHouse exporter', 'Export to ClickHouse: enable, database, databaseURL, debug, compress, commitInterval, tls. A change replaces the exporter.', 'live'),
  s3Uploader: pending('the S3 uploader', 'Upload CSV files to S3: enable, bucketName, bucketPrefix, region, recordFormat, compress, maxRecordsPerFile, uploadInterval. A change replaces the exporter.', 'live'),
  flowLogger: pending('the flow-log exporter', 'Write flows to local files: enable, path, maxSize, maxBackups, maxAge, compress, recordFormat, filters, prettyPrint. A change replaces the exporter.', 'live'),
  flowStreamService: pending('the flow stream service', 'flowStreamService.enable: Antrea\'s FlowStreamService gRPC server on port 14740. Needs a restart.', 'restart'),
  clusterID: pending('the IPFIX exporter', 'The clusterId element of exported records (Antrea: the cluster UUID from ConfigMap antrea-cluster-identity).', 'restart'),
};

/**
 * recordBufferSize sized Antrea's ring buffer between aggregation and the exporters, which overwrites
 * the oldest records when an exporter falls behind. flowagg's exporters read the message log at their own
 * pace instead, so nothing is overwritten and there is nothing to size.
 */
export const recordBufferSize = emptyIsDefault(
  z
    .number()
    .int()
    .positive()
    .optional()
    .meta({
      description: "Antrea's ring-buffer size (entries, 8192 in Antrea). Accepted and unused: each exporter reads the message log at its own pace, so no record is overwritten.",
      note: "accepted as Antrea's key and unused: flowagg's message log replaces Antrea's ring buffer, so no record is ever overwritten",
    }),
  [0],
);

type PendingShape = typeof antreaPendingShape;

/** `shape` plus a placeholder for each Antrea key it does not define itself. */
export function withAntreaKeys<S extends z.ZodRawShape>(shape: S): Omit<PendingShape, keyof S> & S {
  const missing = Object.fromEntries(Object.entries(antreaPendingShape).filter(([k]) => !(k in shape)));
  return { ...missing, ...shape } as Omit<PendingShape, keyof S> & S;
}
