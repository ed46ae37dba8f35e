// NetFlow v9 packets (RFC 3954 §5: a header and FlowSets, which are IPFIX's sets with other ids for the
// templates) and NetFlow v5 packets (a header and up to 30 fixed records), walked with the IPFIX codec's
// parts: the set walk, the template store (keyed by Source ID, as IPFIX's by observation domain), the
// record layouts and decoders. scanNetflowV9/V5 hand data sets to a visitor as scanMessage does;
// decodeNetflow also decodes their records into values.
import { asBuffer, type DecodedMessage, decodeScanned, type DecodeOptions } from './decode-message.js';
import { IPFIX_ERR, IpfixError } from './errors.js';
import { u16 } from './message-header.js';
import { NETFLOW_V5_HEADER_LENGTH, NETFLOW_V5_VERSION, NETFLOW_V9_HEADER_LENGTH, NETFLOW_V9_VERSION, type NetflowHeader, readNetflowV5Header, readNetflowV9Header } from './netflow-header.js';
import { decodeNetflowTemplateSet, netflowSetKind } from './netflow-template.js';
import { NETFLOW_V5_MAX_COUNT, NETFLOW_V5_RECORD_LENGTH, NETFLOW_V5_TEMPLATE } from './netflow-v5.js';
import { type DataSetVisitor, type ScannedMessage, type SetDialect, walkSets } from './set-walk.js';
import type { TemplateStore } from './template-store.js';

export interface ScannedNetflow extends ScannedMessage {
  header: NetflowHeader;
}

const V9_SETS: SetDialect = { kind: netflowSetKind, templates: decodeNetflowTemplateSet, trailingPadding: true };

/** Walks a NetFlow v9 packet (the whole of `input`): throws IpfixError when its header is cut off. */
export function scanNetflowV9(input: Uint8Array, store: TemplateStore, visit: DataSetVisitor): ScannedNetflow {
  const buf = asBuffer(input);
  const header = readNetflowV9Header(buf);
  const out: ScannedNetflow = { header, templates: [], withdrawals: [], errors: [] };
  walkSets(buf, NETFLOW_V9_HEADER_LENGTH, buf.length, store, V9_SETS, visit, out);
  return out;
}

/**
 * Walks a NetFlow v5 packet: its records are one data set of NETFLOW_V5_TEMPLATE. A count the packet cannot
 * hold is an error, and the whole records it does hold are still handed on.
 */
export function scanNetflowV5(input: Uint8Array, visit: DataSetVisitor): ScannedNetflow {
  const buf = asBuffer(input);
  const header = readNetflowV5Header(buf);
  const out: ScannedNetflow = { header, templates: [], withdrawals: [], errors: [] };
  const room = Math.floor((buf.length - NETFLOW_V5_HEADER_LENGTH) / NETFLOW_V5_RECORD_LENGTH);
  const ctx = { offset: 2, observationDomainId: header.observationDomainId };
  if (header.count === 0 || header.count > NETFLOW_V5_MAX_COUNT) {
    out.errors.push(new IpfixError(IPFIX_ERR.NETFLOW_BAD_COUNT, `NetFlow v5 packet says it holds ${header.count} records; v5 packets hold 1 to ${NETFLOW_V5_MAX_COUNT}`, ctx));
  } else if (header.count > room) {
    out.errors.push(new IpfixError(IPFIX_ERR.NETFLOW_BAD_COUNT, `NetFlow v5 packet of ${buf.length} bytes says it holds ${header.count} records but has room for ${room}`, ctx));
  }
  const records = Math.min(header.count, room, NETFLOW_V5_MAX_COUNT);
  if (records > 0) visit(NETFLOW_V5_TEMPLATE, buf, NETFLOW_V5_HEADER_LENGTH, NETFLOW_V5_HEADER_LENGTH + records * NETFLOW_V5_RECORD_LENGTH, 0, out.errors);
  return out;
}

/** The version field of a packet (5, 9, 10 for IPFIX), or -1 when it has fewer than 2 bytes. */
export function packetVersion(b: Uint8Array): number {
  return b.length < 2 ? -1 : u16(b, 0);
}

/** Decodes a NetFlow v9 or v5 packet into data records; throws IpfixError for another version or a cut-off header. */
export function decodeNetflow(input: Uint8Array, store: TemplateStore, opts: DecodeOptions = {}): ScannedNetflow & DecodedMessage {
  const version = packetVersion(input);
  if (version === NETFLOW_V9_VERSION) return decodeScanned((visit) => scanNetflowV9(input, store, visit), store, opts);
  if (version === NETFLOW_V5_VERSION) return decodeScanned((visit) => scanNetflowV5(input, visit), store, opts);
  throw new IpfixError(IPFIX_ERR.BAD_VERSION, `version ${version} is neither NetFlow v5 nor v9`, { offset: 0 });
}
