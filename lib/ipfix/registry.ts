// The IPFIX information-element registry: IANA, RFC 5103 reverse (PEN 29305) and Antrea (PEN 56506)
// elements, generated from ../shared/reference/registry/ into ipfix-registry.generated.ts.
// Elements nobody registered are not an error: they get a synthetic octetArray element named
// `e<pen>.<id>`, so that their raw bytes are kept with their ids.
import { type InfoElement, VARIABLE_LENGTH } from './types.js';
import { IPFIX_ERR, IpfixError } from './errors.js';
import { IE_ROWS } from './registry.generated.js';

export const IANA_PEN = 0;
export const REVERSE_PEN = 29305;
export const ANTREA_PEN = 56506;

const key = (pen: number, id: number) => pen * 65536 + id;

const byKey = new Map<number, InfoElement>();
const byName = new Map<string, InfoElement>();
for (const [pen, id, name, type, length] of IE_ROWS) {
  const ie: InfoElement = Object.freeze({ pen, id, name, type, length });
  byKey.set(key(pen, id), ie);
  // IANA names are unique; the first registration of a name wins if another registry reuses it.
  if (!byName.has(name)) byName.set(name, ie);
}

/** Synthetic elements, created once per (pen, id) so that equal ids share one object. */
const unknown = new Map<number, InfoElement>();

/** The element registered under (pen, id), or undefined. */
export function findElement(pen: number, id: number): InfoElement | undefined {
  return byKey.get(key(pen, id));
}

/** The element registered under (pen, id), or a synthetic octetArray element `e<pen>.<id>`. */
export function lookupElement(pen: number, id: number): InfoElement {
  const k = key(pen, id);
  const known = byKey.get(k);
  if (known !== undefined) return known;
  let synthetic = unknown.get(k);
  if (synthetic === undefined) {
    // Bounded: at most 2^32 PENs × 2^15 ids in theory, but only ids that arrive in accepted templates,
    // and the template store caps how many templates exist.
    synthetic = Object.freeze({ pen, id, name: unknownElementName(pen, id), type: 'octetArray', length: VARIABLE_LENGTH });
    if (unknown.size < 65536) unknown.set(k, synthetic);
  }
  return synthetic;
}

export function unknownElementName(pen: number, id: number): string {
  return `e${pen}.${id}`;
}

/** Lookup by name (`sourceIPv4Address`, `reverseOctetDeltaCount`, `sourcePodName`, `e<pen>.<id>`). */
export function elementByName(name: string): InfoElement | undefined {
  const known = byName.get(name);
  if (known !== undefined) return known;
  const m = /^e(\d+)\.(\d+)$/.exec(name);
  return m === null ? undefined : lookupElement(Number(m[1]), Number(m[2]));
}

/** Like elementByName, but a missing name is an error (for names in code and configuration). */
export function element(name: string): InfoElement {
  const ie = elementByName(name);
  if (ie === undefined) throw new IpfixError(IPFIX_ERR.UNKNOWN_ELEMENT, `no IPFIX information element named "${name}"`, { name });
  return ie;
}

export function allElements(): IterableIterator<InfoElement> {
  return byKey.values();
}
