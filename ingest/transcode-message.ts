// One IPFIX message of a session → FlowRecords for flows.raw. The codec's scanMessage walks the sets
// (RFC 7011 §3.3) and learns templates into the session's store as they come; data records are not
// decoded into objects: each goes through its template's compiled transcoder, which writes the flow key
// and the Avro value straight from the IPFIX bytes into a shared RecordBuffer. Options data records are
// not flows: they are decoded only for systemInitTimeMilliseconds, which uptime-relative flow times need.
import { type ProduceRecord } from '../lib/log/types.js';
import { type ScannedMessage, scanMessage } from '../lib/ipfix/decode-message.js';
import { IPFIX_ERR, IpfixError } from '../lib/ipfix/errors.js';
import { readMessageHeader } from '../lib/ipfix/message-header.js';
import { type DecodeContext, recordDecoder } from '../lib/ipfix/record-decoder.js';
import { recordLayout } from '../lib/ipfix/record-layout.js';
import { type Template } from '../lib/ipfix/types.js';
import { type RecordBuffer } from './records/record-buffer.js';
import { type ExporterSession } from './session.js';

/** IANA systemInitTimeMilliseconds. */
const SYSTEM_INIT_TIME_ID = 160;

export interface TranscodedMessage extends ScannedMessage {
  /** Flow key and framed Avro FlowRecord of every flow data record, views into the RecordBuffer. */
  readonly records: ProduceRecord[];
  /** Bytes of keys and values in `records`. */
  readonly bytes: number;
  readonly optionsRecords: number;
}

/** Throws IpfixError when the header is unusable (nothing in the message can be trusted then). */
export function transcodeMessage(session: ExporterSession, buf: Buffer, out: RecordBuffer, receiveTime: number): TranscodedMessage {
  // The header is read before the walk because every record's transcoding needs its export time and sequence.
  const header = readMessageHeader(buf);
  const ctx = session.context;
  ctx.exportTime = header.exportTime;
  ctx.sequenceNumber = header.sequenceNumber;
  ctx.receiveTime = receiveTime;
  ctx.systemInitTime = session.systemInitTime.get(header.observationDomainId);
  const records: ProduceRecord[] = [];
  let bytes = 0;
  let optionsRecords = 0;
  const scanned = scanMessage(buf, session.templates, (template, b, start, end, setIndex, errors) => {
    if (template.scopeFieldCount > 0) optionsRecords += readOptionsRecords(session, template, b, start, end, setIndex, errors);
    else bytes += transcodeDataSet(session, template, b, start, end, setIndex, out, records, errors);
  });
  if (scanned.withdrawals.length > 0) session.pruneTranscoders();
  return { ...scanned, records, bytes, optionsRecords };
}

/** Returns the bytes of keys and values added to `records`. */
function transcodeDataSet(
  session: ExporterSession, template: Template, buf: Buffer, start: number, end: number, setIndex: number,
  out: RecordBuffer, records: ProduceRecord[], errors: IpfixError[],
): number {
  const transcoder = session.transcoder(template);
  const { minLength } = recordLayout(template);
  let bytes = 0;
  let p = start;
  // Fewer bytes than the shortest record are padding (RFC 7011 §3.3.1).
  while (end - p >= minLength) {
    const next = transcoder.transcode(buf, p, end, session.context, out);
    if (next < 0) {
      errors.push(
        new IpfixError(IPFIX_ERR.TRUNCATED_RECORD, `record of template ${template.id} is cut off by the end of its set (${end - p} bytes left)`, {
          offset: p, observationDomainId: template.observationDomainId, templateId: template.id, setIndex,
        }),
      );
      return bytes;
    }
    records.push({ key: out.key(), value: out.value() });
    bytes += out.valueEnd - out.keyStart;
    p = next;
  }
  return bytes;
}

/** Returns how many options records it read. */
function readOptionsRecords(
  session: ExporterSession, template: Template, buf: Buffer, start: number, end: number, setIndex: number, errors: IpfixError[],
): number {
  const initIndex = template.fields.findIndex((f) => f.ie.pen === 0 && f.ie.id === SYSTEM_INIT_TIME_ID);
  const { decode, layout } = recordDecoder(template);
  const odid = template.observationDomainId;
  const cx: DecodeContext = { store: session.templates, observationDomainId: odid, depth: 0, maxDepth: 8, next: 0 };
  let read = 0;
  let p = start;
  while (end - p >= layout.minLength) {
    try {
      const record = decode(buf, p, end, cx);
      if (record === undefined) {
        errors.push(new IpfixError(IPFIX_ERR.TRUNCATED_RECORD, `options record of template ${template.id} is cut off by the end of its set`, { offset: p, observationDomainId: odid, templateId: template.id, setIndex }));
        return read;
      }
      read++;
      const init = initIndex >= 0 ? record.values[initIndex] : undefined;
      if (typeof init === 'number') {
        session.systemInitTime.set(odid, init);
        session.context.systemInitTime = init;
      }
      p = cx.next;
    } catch (err) {
      if (!(err instanceof IpfixError)) throw err;
      errors.push(new IpfixError(err.code, `options record of template ${template.id}: ${err.message}`, { ...err.context, offset: p, observationDomainId: odid, templateId: template.id, setIndex }));
      return read;
    }
  }
  return read;
}
