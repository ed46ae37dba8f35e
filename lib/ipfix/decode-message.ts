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
import { MESSAGE_HEADER_LENGTH, readMessageHeader, u16 } from './message-header.js';
import { type DecodeContext, recordDecoder } from './record-decoder.js';
import { SET_HEADER_LENGTH, setKind } from './set-header.js';
import { decodeTemplateSet } from './template-record.js';
import { type TemplateStore } from './template-store.js';
import { type DataRecord, type MessageHeader, type Template, type TemplateWithdrawal } from './types.js';

/** What scanning a message yields besides its data sets. */
export interface ScannedMessage {
  header: MessageHeader;
  /** Templates learned or redefined in this message. */
  templates: Template[];
  /** Withdrawals that took effect (none over UDP, where RFC 7011 §8.4 says to ignore them). */
  withdrawals: TemplateWithdrawal[];
  /** Set- and record-level problems; the rest of the message was still decoded. */
  errors: IpfixError[];
}

export interface DecodedMessage extends ScannedMessage {
  records: DataRecord[];
}

/**
 * Receives each data set whose template is known, in message order: its records are in
 * buf[start..end) (padding included). Problems found in them go to `errors`.
 */
export type DataSetVisitor = (template: Template, buf: Buffer, start: number, end: number, setIndex: number, errors: IpfixError[]) => void;

export interface DecodeOptions {
  /** Deepest RFC 6313 list nesting accepted (default 8). */
  maxListDepth?: number;
  /** Compile each template at first use instead of after COMPILE_AFTER_RECORDS records (tests, benchmarks). */
  compileNow?: boolean;
}

/**
 * Walks the message at the start of `input` (its header's length says where it ends; `input` may be
 * longer, as when reading a file): checks the header, learns templates into the store and applies
 * withdrawals as they come, and hands every data set of a known template to `visit`, without decoding
 * its records. This is the layer for callers that locate fields themselves (recordLayout().scanRecord),
 * like the ingest's transcoder. Throws IpfixError for message-level problems: a truncated header, a
 * version other than 10, or a length field that does not fit the buffer.
 */
export function scanMessage(input: Uint8Array, store: TemplateStore, visit: DataSetVisitor): ScannedMessage {
  // A Buffer view (no copy) gives the string decoder Node's native UTF-8 slicing.
  const buf = input instanceof Buffer ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const header = readMessageHeader(buf);
  const odid = header.observationDomainId;
  const out: ScannedMessage = { header, templates: [], withdrawals: [], errors: [] };
  const end = header.length;
  let p = MESSAGE_HEADER_LENGTH;
  for (let setIndex = 0; p < end; setIndex++) {
    if (end - p < SET_HEADER_LENGTH) {
      out.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `${end - p} bytes at the end of the message are too few for a set header`, { offset: p, observationDomainId: odid, setIndex }));
      break;
    }
    const setId = u16(buf, p);
    const setLength = u16(buf, p + 2);
    const ctx = { offset: p, observationDomainId: odid, setIndex };
    if (setLength < SET_HEADER_LENGTH) {
      // A zero-length set would never advance; nothing after it can be located.
      out.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `set ${setId} has length ${setLength}, below its 4-byte header`, ctx));
      break;
    }
    if (p + setLength > end) {
      out.errors.push(new IpfixError(IPFIX_ERR.SET_OVERRUNS_MESSAGE, `set ${setId} of ${setLength} bytes overruns the message by ${p + setLength - end} bytes`, ctx));
      break;
    }
    const start = p + SET_HEADER_LENGTH;
    const setEnd = p + setLength;
    const kind = setKind(setId);
    if (kind === 'template' || kind === 'optionsTemplate') {
      learnTemplates(buf, start, setEnd, store, odid, kind, setIndex, out);
    } else if (kind === 'data') {
      const template = store.get(odid, setId);
      if (template === undefined) {
        out.errors.push(new IpfixError(IPFIX_ERR.UNKNOWN_TEMPLATE, `data set for unknown template ${setId} in domain ${odid}; set skipped`, { ...ctx, templateId: setId, setLength }));
      } else {
        visit(template, buf, start, setEnd, setIndex, out.errors);
      }
    } else {
      out.errors.push(new IpfixError(IPFIX_ERR.RESERVED_SET_ID, `set id ${setId} is reserved; set skipped`, { ...ctx, setLength }));
    }
    p = setEnd;
  }
  return out;
}

/**
 * Decodes the message at the start of `input` into its data records, every value materialised (see
 * scanMessage for the walk and the errors thrown). A bad record is reported in `errors` and skipped.
 */
export function decodeMessage(input: Uint8Array, store: TemplateStore, opts: DecodeOptions = {}): DecodedMessage {
  const records: DataRecord[] = [];
  let cx: DecodeContext | undefined;
  const scanned = scanMessage(input, store, (template, buf, start, end, setIndex, errors) => {
    cx ??= { store, observationDomainId: template.observationDomainId, depth: 0, maxDepth: opts.maxListDepth ?? 8, next: 0, compileNow: opts.compileNow };
    decodeDataSet(buf, start, end, template, cx, setIndex, records, errors);
  });
  return { ...scanned, records };
}

function learnTemplates(
  buf: Uint8Array, start: number, end: number, store: TemplateStore, odid: number,
  kind: 'template' | 'optionsTemplate', setIndex: number, out: ScannedMessage,
): void {
  const content = decodeTemplateSet(buf, start, end, odid, kind === 'optionsTemplate', setIndex);
  out.errors.push(...content.errors);
  for (const t of content.templates) {
    store.set(t);
    out.templates.push(store.get(odid, t.id) ?? t);
  }
  for (const templateId of content.withdrawals) {
    if (store.withdraw(odid, templateId, kind)) out.withdrawals.push({ observationDomainId: odid, templateId });
  }
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
