// Where the row destinations get the clusterUUID column from: a fixed value (tests, a static
// configuration) or a lookup done once at start (the antrea-cluster-identity ConfigMap in a cluster).
// Unknown means "", as Antrea writes it before the UUID is known.
export type ClusterUuidSource = string | (() => Promise<string | undefined>);

export async function resolveClusterUuid(source: ClusterUuidSource | undefined): Promise<string> {
  if (source === undefined || typeof source === 'string') return source ?? '';
  return (await source()) ?? '';
}
