// Antrea's default observation domain id (exporter/ipfix.go genObservationDomainID): FNV-1 32-bit (Go's
// hash/fnv New32) of the 16 raw bytes of the cluster UUID.

/** FNV-1, 32-bit: multiply, then xor (FNV-1a does the reverse). */
export function fnv1_32(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h;
}

/** The 16 bytes of a UUID in text form, or undefined when it is not one. */
export function uuidBytes(text: string): Uint8Array | undefined {
  const hex = text.replaceAll('-', '');
  return /^[0-9a-f]{32}$/i.test(hex) && text.length === 36 ? Uint8Array.from(Buffer.from(hex, 'hex')) : undefined;
}

export function defaultObservationDomainId(clusterUuid: string | undefined): number {
  const bytes = clusterUuid === undefined ? undefined : uuidBytes(clusterUuid);
  return bytes === undefined ? 0 : fnv1_32(bytes);
}
