// An IPFIX Message (RFC 7011 §3): a header followed by any number of sets, each a template set,
// an options template set or a data set, in any order; a set may end in padding.
//
//  +----------------------------------------------------+
//  | Message Header | Set | Set | ... | Set              |
//  +----------------------------------------------------+
//
// scanMessage checks the header (problems there are thrown: nothing in the message can be trusted),
// then walks every set it can; decodeMessage also decodes the data records. A bad set or record is reported in `errors` and skipped; the rest of
// the message is still decoded. Templates are learned into the session's TemplateStore as they come,
// so a data set may use a template defined earlier in the same message.
import { IPFIX_ERR, IpfixError } from './errors.js';
import { MESSAGE_HEADER_LENGTH, readMessageHeader } from './message-header.js';
import { type DecodeContext, recordDecoder } from './record-decoder.js';
import { setKind } from './set-header.js';
import { type DataSetVisitor, type ScannedMessage, type SetDialect, walkSets } from './set-walk.js';
import { decodeTemplateSet } from './template-record.js';
import type { TemplateStore } from './template-store.js';
import type { DataRecord, Template } from './types.js';

export type { DataSetVisitor, ScannedMessage } from './set-walk.js';

export interface DecodedMessage extends ScannedMessage {
  records: DataRecord[];
}

export interface DecodeOptions {
  /** Deepest RFC 6313 list nesting accepted (default 8). */
  maxListDepth?: number;
  /** Compile each template at first use instead of after COMPILE_AFTER_RECORDS records (tests, benchmarks). */
  compileNow?: boolean;
}

const IPFIX_SETS: SetDialect = { kind: setKind, templates: decodeTemplateSet, trailingPadding: false };

/**
 * Walks the message at the start of `input` (its header's length says where it ends; `input` may be
 * longer, as when reading a file): checks the header, learns templates into the store and applies
 * withdrawals as they come, and hands every data set of a known template to `visit`, without decoding
 * its records. This is the layer for callers that locate fields themselves (recordLayout().scanRecord),
 * like the ingest's transcoder. Throws IpfixError for message-level problems: a truncated header, a
 * version other than 10, or a length field that does not fit the buffer.
 */
export function scanMessage(input: Uint8Array, store: TemplateStore, visit: DataSetVisitor): ScannedMessage {
  const buf = asBuffer(input);
  const header = readMessageHeader(buf);
  const out: ScannedMessage = { header, templates: [], withdrawals: [], errors: [] };
  walkSets(buf, MESSAGE_HEADER_LENGTH, header.length, store, IPFIX_SETS, visit, out);
  return out;
}

/** A Buffer view (no copy): it gives the string decoder Node's native UTF-8 slicing. */
export function asBuffer(input: Uint8Array): Buffer {
  return input instanceof Buffer ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
}

/**
 * Decodes the message at the start of `input` into its data records, every value materialised (see
 * scanMessage for the walk and the errors thrown). A bad record is reported in `errors` and skipped.
 */
export function decodeMessage(input: Uint8Array, store: TemplateStore, opts: DecodeOptions = {}): DecodedMessage {
  return decodeScanned((visit) => scanMessage(input, store, visit), store, opts);
}

/** Decodes the data records of whatever `scan` walks (an IPFIX message, a NetFlow packet) into values. */
export function decodeScanned<S extends ScannedMessage>(scan: (visit: DataSetVisitor) => S, store: TemplateStore, opts: DecodeOptions = {}): S & DecodedMessage {
  const records: DataRecord[] = [];
  let cx: DecodeContext | undefined;
  const scanned = scan((template, buf, start, end, setIndex, errors) => {
    cx ??= { store, observationDomainId: template.observationDomainId, depth: 0, maxDepth: opts.maxListDepth ?? 8, next: 0, compileNow: opts.compileNow };
    decodeDataSet(buf, start, end, template, cx, setIndex, records, errors);
  });
  return { ...scanned, records };
}

function decodeDataSet(
  buf: Uint8Array, start: number, end: number, template: Template, cx: DecodeContext, setIndex: number,
  records: DataRecord[], errors: IpfixError[],
): void {
  const odid = template.observationDomainId;
  const templateId = template.id;
  const decoder = recordDecoder(template, cx.compileNow);
  const layout = decoder.layout;
  let p = start;
  // Fewer bytes than the shortest record are padding (RFC 7011 §3.3.1).
  while (end - p >= layout.minLength) {
    let rec: DataRecord | undefined;
    try {
      rec = decoder.decode(buf, p, end, cx);
    } catch (err) {
      if (!(err instanceof IpfixError)) throw err;
      cx.depth = 0;
      const next = skipRecord(buf, p, end, layout.scanRecord, template.fields.length);
      errors.push(new IpfixError(err.code, `record of template ${templateId}: ${err.message}`, { ...err.context, offset: p, observationDomainId: odid, templateId, setIndex }));
      if (next < 0) return;
      p = next;
      continue;
    }
    if (rec === undefined) {
      errors.push(new IpfixError(IPFIX_ERR.TRUNCATED_RECORD, `record of template ${templateId} is cut off by the end of its set (${end - p} bytes left)`, { offset: p, observationDomainId: odid, templateId, setIndex }));
      return;
    }
    records.push(rec);
    p = cx.next;
  }
}

let scratch = { starts: new Int32Array(64), lengths: new Int32Array(64) };

function skipRecord(buf: Uint8Array, p: number, end: number, scan: (b: Uint8Array, o: number, e: number, s: Int32Array, n: Int32Array) => number, fields: number): number {
  if (scratch.starts.length < fields) scratch = { starts: new Int32Array(fields), lengths: new Int32Array(fields) };
  return scan(buf, p, end, scratch.starts, scratch.lengths);
}
