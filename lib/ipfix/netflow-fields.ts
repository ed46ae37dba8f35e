// NetFlow v9 field types (RFC 3954 §8) as IPFIX information elements, so that one template model, one record
// layout compiler and one FlowRecord plan serve both protocols:
// - types 1..32767 are IANA's numbers: 1..127 are NetFlow v9's own, shared by definition (RFC 7012 §4), and
//   Cisco numbers its later v9 types after IANA's registry (152 flowStartMilliseconds, 225 postNATSource-
//   IPv4Address...), which is how Wireshark and nfdump read them too;
// - types 32768..65535 are vendor types that IPFIX cannot carry under IANA (bit 15 is its enterprise bit):
//   the ones with an IANA equivalent map to it (VENDOR_FIELDS), the others keep their bytes as element
//   `e4294967295.<type - 32768>`, the enterprise number ipfixcol2 uses for them;
// - scope types of options templates (RFC 3954 §6.1: System, Interface, Line Card, Cache, Template) have
//   their own numbering: they map as ipfixcol2 maps them (SCOPE_FIELDS); another scope type keeps its bytes
//   as `e4294967294.<type>`.
// v9 has its own length rules: any length an exporter chose is accepted (a template is never refused for
// it), and a field whose length its element's type cannot have (an address in 16 bytes, a counter in 9) is
// read as an octetArray of that element, so its bytes go to a FlowRecord's extras instead of a typed field;
// so is a field whose element is an RFC 6313 list, a structure NetFlow v9 does not have.
import { validFieldLength } from './field-codec.js';
import { findElement, lookupElement } from './registry.js';
import { type InfoElement, VARIABLE_LENGTH } from './types.js';

/** The enterprise number of v9 vendor types (≥ 32768) without an IANA equivalent. */
export const NETFLOW_VENDOR_PEN = 4294967295;
/** The enterprise number of v9 scope types without an IPFIX equivalent. */
export const NETFLOW_SCOPE_PEN = 4294967294;

/** v9 vendor types with an IANA equivalent: Cisco ASA 8.4's NSEL fields, as nfdump maps them. */
export const VENDOR_FIELDS: ReadonlyMap<number, number> = new Map([
  [40000, 371], // NF_F_USERNAME → userName
  [40001, 225], // NF_F_XLATE_SRC_ADDR_84 → postNATSourceIPv4Address
  [40002, 226], // NF_F_XLATE_DST_ADDR_84 → postNATDestinationIPv4Address
  [40003, 227], // NF_F_XLATE_SRC_PORT_84 → postNAPTSourceTransportPort
  [40004, 228], // NF_F_XLATE_DST_PORT_84 → postNAPTDestinationTransportPort
  [40005, 233], // NF_F_FW_EVENT_84 → firewallEvent
]);

/** v9 scope types → IPFIX scope elements. */
export const SCOPE_FIELDS: ReadonlyMap<number, number> = new Map([
  [1, 144], // System → exportingProcessId
  [2, 10], // Interface → ingressInterface
  [3, 141], // Line Card → lineCardId
  [4, 143], // NetFlow Cache → meteringProcessId
  [5, 145], // Template → templateId
]);

const VENDOR_RANGE = 32768;
const LISTS: ReadonlySet<string> = new Set(['basicList', 'subTemplateList', 'subTemplateMultiList']);

function mappedElement(type: number, scope: boolean): InfoElement {
  if (scope) {
    const id = SCOPE_FIELDS.get(type);
    return id === undefined ? lookupElement(NETFLOW_SCOPE_PEN, type) : findElement(0, id)!;
  }
  if (type < VENDOR_RANGE) return lookupElement(0, type);
  const id = VENDOR_FIELDS.get(type);
  return id === undefined ? lookupElement(NETFLOW_VENDOR_PEN, type - VENDOR_RANGE) : findElement(0, id)!;
}

/** Opaque variants of typed elements, one per element (so equal fields share one object, as layouts need). */
const opaque = new Map<InfoElement, InfoElement>();

function opaqueOf(ie: InfoElement): InfoElement {
  let o = opaque.get(ie);
  if (o === undefined) {
    o = Object.freeze({ ...ie, type: 'octetArray', length: VARIABLE_LENGTH });
    // Bounded by the registry's size: only registered elements have typed variants.
    opaque.set(ie, o);
  }
  return o;
}

/** Elements by (scope, type, length): templates are decoded again at every refresh, field by field. */
const memo = new Map<number, InfoElement>();
const MAX_MEMO = 65536;

/** The element of a v9 field of `type` sent in `length` bytes (a scope field of an options template when `scope`). */
export function netflowFieldElement(type: number, length: number, scope: boolean): InfoElement {
  const key = (scope ? 2 ** 32 : 0) + type * 65536 + length;
  let ie = memo.get(key);
  if (ie === undefined) {
    const mapped = mappedElement(type, scope);
    ie = validFieldLength(mapped.type, length) && !LISTS.has(mapped.type) ? mapped : opaqueOf(mapped);
    // Bounded: whatever (type, length) pairs senders invent, at most MAX_MEMO are remembered.
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(key, ie);
  }
  return ie;
}
