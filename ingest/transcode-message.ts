// One IPFIX message of a session → FlowRecords for flows.raw. Walks the message's sets the way the
// codec's decodeMessage does (RFC 7011 §3.3), but data records are not decoded into objects: each goes
// through its template's compiled transcoder, which writes the flow key and the Avro value straight from
// the IPFIX bytes into a shared RecordBuffer. Templates are learned into the session's store as they come
// (a data set may use a template defined earlier in the same message). Options data records are not
// flows: they are decoded only for systemInitTimeMilliseconds, which uptime-relative flow times need.
import { type ProduceRecord } from '../lib/log/types.js';
import { IPFIX_ERR, IpfixError } from '../lib/ipfix/errors.js';
import { MESSAGE_HEADER_LENGTH, readMessageHeader, u16 } from '../lib/ipfix/message-header.js';
import { type DecodeContext, recordDecoder } from '../lib/ipfix/record-decoder.js';
import { recordLayout } from '../lib/ipfix/record-layout.js';
import { SET_HEADER_LENGTH, setKind } from '../lib/ipfix/set-header.js';
import { decodeTemplateSet } from '../lib/ipfix/template-record.js';
import { type MessageHeader, type Template, type TemplateWithdrawal } from '../lib/ipfix/types.js';
import { type RecordBuffer } from './records/record-buffer.js';
import { type ExporterSession } from './session.js';

/** IANA systemInitTimeMilliseconds. */
const SYSTEM_INIT_TIME_ID = 160;

export interface TranscodedMessage {
  readonly header: MessageHeader;
  /** Flow key and framed Avro FlowRecord of every flow data record, views into the RecordBuffer. */
  readonly records: ProduceRecord[];
  /** Bytes of keys and values in `records`. */
  bytes: number;
  optionsRecords: number;
  /** Templates learned or refreshed in this message. */
  readonly templates: Template[];
  readonly withdrawals: TemplateWithdrawal[];
  /** Set- and record-level problems; the rest of the message was still transcoded. */
  readonly errors: IpfixError[];
  /** Data sets skipped because their template is unknown: the message's record count is then unknown. */
  unknownTemplateSets: number;
}

/** Throws IpfixError when the header is unusable (nothing in the message can be trusted then). */
export function transcodeMessage(session: ExporterSession, buf: Buffer, out: RecordBuffer, receiveTime: number): TranscodedMessage {
  const header = readMessageHeader(buf);
  const odid = header.observationDomainId;
  const ctx = session.context;
  ctx.exportTime = header.exportTime;
  ctx.sequenceNumber = header.sequenceNumber;
  ctx.receiveTime = receiveTime;
  ctx.systemInitTime = session.systemInitTime.get(odid);
  const result: TranscodedMessage = { header, records: [], bytes: 0, optionsRecords: 0, templates: [], withdrawals: [], errors: [], unknownTemplateSets: 0 };
  const end = header.length;
  let p = MESSAGE_HEADER_LENGTH;
  for (let setIndex = 0; p < end; setIndex++) {
    const where = { offset: p, observationDomainId: odid, setIndex };
    if (end - p < SET_HEADER_LENGTH) {
      result.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `${end - p} bytes at the end of the message are too few for a set header`, where));
      break;
    }
    const setId = u16(buf, p);
    const setLength = u16(buf, p + 2);
    if (setLength < SET_HEADER_LENGTH) {
      result.errors.push(new IpfixError(IPFIX_ERR.SHORT_SET, `set ${setId} has length ${setLength}, below its 4-byte header`, where));
      break;
    }
    if (p + setLength > end) {
      result.errors.push(new IpfixError(IPFIX_ERR.SET_OVERRUNS_MESSAGE, `set ${setId} of ${setLength} bytes overruns the message by ${p + setLength - end} bytes`, where));
      break;
    }
    const kind = setKind(setId);
    const start = p + SET_HEADER_LENGTH;
    p += setLength;
    if (kind === 'template' || kind === 'optionsTemplate') {
      learnTemplates(session, buf, start, p, odid, kind, setIndex, result);
    } else if (kind === 'data') {
      const template = session.templates.get(odid, setId);
      if (template === undefined) {
        result.unknownTemplateSets++;
        result.errors.push(new IpfixError(IPFIX_ERR.UNKNOWN_TEMPLATE, `data set for unknown template ${setId} in domain ${odid}; set skipped`, { ...where, templateId: setId }));
      } else if (template.scopeFieldCount > 0) {
        readOptionsRecords(session, template, buf, start, p, setIndex, result);
      } else {
        transcodeDataSet(session, template, buf, start, p, setIndex, out, result);
      }
    } else {
      result.errors.push(new IpfixError(IPFIX_ERR.RESERVED_SET_ID, `set id ${setId} is reserved; set skipped`, where));
    }
  }
  return result;
}

function learnTemplates(
  session: ExporterSession, buf: Buffer, start: number, end: number, odid: number,
  kind: 'template' | 'optionsTemplate', setIndex: number, result: TranscodedMessage,
): void {
  const content = decodeTemplateSet(buf, start, end, odid, kind === 'optionsTemplate', setIndex);
  result.errors.push(...content.errors);
  for (const t of content.templates) {
    try {
      session.templates.set(t);
      result.templates.push(session.templates.get(odid, t.id) ?? t);
    } catch (err) {
      if (!(err instanceof IpfixError)) throw err;
      result.errors.push(err);
    }
  }
  for (const templateId of content.withdrawals) {
    if (session.templates.withdraw(odid, templateId, kind)) result.withdrawals.push({ observationDomainId: odid, templateId });
  }
  if (result.withdrawals.length > 0) session.pruneTranscoders();
}

function transcodeDataSet(
  session: ExporterSession, template: Template, buf: Buffer, start: number, end: number, setIndex: number,
  out: RecordBuffer, result: TranscodedMessage,
): void {
  const transcoder = session.transcoder(template);
  const { minLength } = recordLayout(template);
  const records = result.records;
  let p = start;
  // Fewer bytes than the shortest record are padding (RFC 7011 §3.3.1).
  while (end - p >= minLength) {
    const next = transcoder.transcode(buf, p, end, session.context, out);
    if (next < 0) {
      result.errors.push(
        new IpfixError(IPFIX_ERR.TRUNCATED_RECORD, `record of template ${template.id} is cut off by the end of its set (${end - p} bytes left)`, {
          offset: p, observationDomainId: template.observationDomainId, templateId: template.id, setIndex,
        }),
      );
      return;
    }
    records.push({ key: out.key(), value: out.value() });
    result.bytes += out.valueEnd - out.keyStart;
    p = next;
  }
}

function readOptionsRecords(
  session: ExporterSession, template: Template, buf: Buffer, start: number, end: number, setIndex: number, result: TranscodedMessage,
): void {
  const initIndex = template.fields.findIndex((f) => f.ie.pen === 0 && f.ie.id === SYSTEM_INIT_TIME_ID);
  const { decode, layout } = recordDecoder(template);
  const odid = template.observationDomainId;
  const cx: DecodeContext = { store: session.templates, observationDomainId: odid, depth: 0, maxDepth: 8, next: 0 };
  let p = start;
  while (end - p >= layout.minLength) {
    try {
      const record = decode(buf, p, end, cx);
      if (record === undefined) {
        result.errors.push(new IpfixError(IPFIX_ERR.TRUNCATED_RECORD, `options record of template ${template.id} is cut off by the end of its set`, { offset: p, observationDomainId: odid, templateId: template.id, setIndex }));
        return;
      }
      result.optionsRecords++;
      const init = initIndex >= 0 ? record.values[initIndex] : undefined;
      if (typeof init === 'number') {
        session.systemInitTime.set(odid, init);
        session.context.systemInitTime = init;
      }
      p = cx.next;
    } catch (err) {
      if (!(err instanceof IpfixError)) throw err;
      result.errors.push(new IpfixError(err.code, `options record of template ${template.id}: ${err.message}`, { ...err.context, offset: p, observationDomainId: odid, templateId: template.id, setIndex }));
      return;
    }
  }
}
