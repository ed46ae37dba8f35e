// Antrea's cluster identity: the Antrea Controller stores a random UUID in the ConfigMap
// antrea-cluster-identity (key "uuid") of Antrea's namespace, and the FlowAggregator derives the
// observation domain id of its IPFIX exports from it unless flowCollector.observationDomainID is set
// (reference §3): FNV-1 (not FNV-1a) 32-bit over the UUID's 16 raw bytes, as Go's hash/fnv.New32.
export const CLUSTER_IDENTITY_CONFIGMAP = 'antrea-cluster-identity';
export const CLUSTER_IDENTITY_KEY = 'uuid';

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lower-case canonical UUID text, or undefined when `text` is not a UUID ("8-4-4-4-12" hex). */
export function canonicalUuid(text: string): string | undefined {
  const s = text.trim();
  return UUID_TEXT.test(s) ? s.toLowerCase() : undefined;
}

/** The 16 bytes of a UUID in text form; throws on text that is not one. */
export function uuidBytes(uuid: string): Uint8Array {
  const canonical = canonicalUuid(uuid);
  if (canonical === undefined) throw new TypeError(`"${uuid}" is not a UUID`);
  return Uint8Array.from(Buffer.from(canonical.replaceAll('-', ''), 'hex'));
}

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1 32-bit: multiply, then xor, for each byte. */
export function fnv1Hash32(bytes: Uint8Array): number {
  let h = FNV32_OFFSET;
  for (const b of bytes) h = (Math.imul(h, FNV32_PRIME) ^ b) >>> 0;
  return h;
}

/** The observation domain id Antrea's FlowAggregator uses for a cluster UUID. */
export function observationDomainIdOf(clusterUuid: string): number {
  return fnv1Hash32(uuidBytes(clusterUuid));
}
