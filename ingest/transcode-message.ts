// One IPFIX message of a session → FlowRecords for flows.raw. The codec's scanMessage walks the sets
// (RFC 7011 §3.3) and learns templates into the session's store as they come; data records are not
// decoded into objects: each goes through its layout's shared transcoder, which writes the flow key and
// the Avro value straight from the IPFIX bytes into a shared RecordBuffer. Options data records are not
// flows: they are read only for systemInitTimeMilliseconds, which uptime-relative flow times need.
//
// A data set must be a whole number of records of its template plus zero padding (RFC 7011 §3.3.1). One
// that is not was written with another layout than the one known here (a redefinition that reached this
// replica late, or corruption): its records would be garbage, so the whole set is skipped and counted
// (FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH), never written.
import { type ScannedMessage, scanMessage } from '../lib/ipfix/decode-message.js';
import { IPFIX_ERR, IpfixError, type IpfixErrorCode } from '../lib/ipfix/errors.js';
import { readMessageHeader } from '../lib/ipfix/message-header.js';
import { interpretedScanner, layoutShape, type ScanRecord } from '../lib/ipfix/record-layout.js';
import { type Template } from '../lib/ipfix/types.js';
import { type ProduceRecord } from '../lib/log/types.js';
import { type RecordBuffer } from '../schemas/record-buffer.js';
import { type TranscoderCache } from './records/transcoder-cache.js';
import { type ExporterSession } from './session.js';

/** IANA systemInitTimeMilliseconds. */
const SYSTEM_INIT_TIME_ID = 160;

/** A set skipped whole, whose records cannot be counted (unknown template, layout mismatch, reserved set id). */
export interface SkippedSet {
  readonly reason: IpfixErrorCode;
  readonly bytes: number;
}

export interface TranscodedMessage extends ScannedMessage {
  /** Flow key and framed Avro FlowRecord of every flow data record, views into the RecordBuffer. */
  readonly records: ProduceRecord[];
  /** Bytes of keys and values in `records`. */
  readonly bytes: number;
  readonly optionsRecords: number;
  readonly skipped: SkippedSet[];
  /** Whether the message held any data set (flows or options, decoded or skipped). */
  readonly hasData: boolean;
}

/** Throws IpfixError when the header is unusable (nothing in the message can be trusted then). */
export function transcodeMessage(session: ExporterSession, buf: Buffer, out: RecordBuffer, receiveTime: number, transcoders: TranscoderCache): TranscodedMessage {
  // The header is read before the walk because every record's transcoding needs its export time and sequence.
  const header = readMessageHeader(buf);
  const ctx = session.context;
  ctx.exportTime = header.exportTime;
  ctx.sequenceNumber = header.sequenceNumber;
  ctx.observationDomainId = header.observationDomainId;
  ctx.receiveTime = receiveTime;
  ctx.systemInitTime = session.systemInitTime.get(header.observationDomainId);
  const records: ProduceRecord[] = [];
  const skipped: SkippedSet[] = [];
  let bytes = 0;
  let optionsRecords = 0;
  let hasData = false;
  const scanned = scanMessage(buf, session.templates, (template, b, start, end, setIndex, errors) => {
    hasData = true;
    const n = template.scopeFieldCount > 0
      ? readOptionsRecords(session, template, b, start, end)
      : transcodeDataSet(session, transcoders, template, b, start, end, out, records);
    if (n < 0) {
      errors.push(mismatch(template, start, end, setIndex));
      skipped.push({ reason: IPFIX_ERR.LAYOUT_MISMATCH, bytes: end - start + 4 });
    } else if (template.scopeFieldCount > 0) {
      optionsRecords += n;
    }
  });
  for (const err of scanned.errors) {
    const setLength = err.context.setLength;
    if (err.code === IPFIX_ERR.UNKNOWN_TEMPLATE || err.code === IPFIX_ERR.RESERVED_SET_ID) {
      hasData ||= err.code === IPFIX_ERR.UNKNOWN_TEMPLATE;
      skipped.push({ reason: err.code, bytes: typeof setLength === 'number' ? setLength : 0 });
    } else if (err.code === IPFIX_ERR.SHORT_SET || err.code === IPFIX_ERR.SET_OVERRUNS_MESSAGE) {
      // The rest of the message cannot be located.
      skipped.push({ reason: err.code, bytes: header.length - (err.context.offset ?? header.length) });
    }
  }
  for (const r of records) bytes += r.key!.length + r.value!.length;
  return { ...scanned, records, bytes, optionsRecords, skipped, hasData };
}

function mismatch(template: Template, start: number, end: number, setIndex: number): IpfixError {
  return new IpfixError(
    IPFIX_ERR.LAYOUT_MISMATCH,
    `data set of ${end - start} bytes is not a whole number of records of template ${template.id} plus zero padding: sent with another layout (a redefinition not seen here yet?); set skipped`,
    { offset: start - 4, observationDomainId: template.observationDomainId, templateId: template.id, setIndex, setLength: end - start + 4 },
  );
}

/**
 * Calls `record` for each record of the set in buf[start..end) (it returns the offset after the record, or -1
 * when the record does not fit); returns how many there were, or -1 when the set does not fit the layout.
 */
function eachRecord(buf: Uint8Array, start: number, end: number, minLength: number, record: (p: number) => number): number {
  let p = start;
  let n = 0;
  while (end - p >= minLength) {
    const next = record(p);
    if (next < 0) return -1;
    p = next;
    n++;
  }
  for (; p < end; p++) if (buf[p] !== 0) return -1;
  return n;
}

/** Returns the records written, or -1 (nothing written) when the set does not fit the layout. */
function transcodeDataSet(
  session: ExporterSession, transcoders: TranscoderCache, template: Template, buf: Buffer, start: number, end: number,
  out: RecordBuffer, records: ProduceRecord[],
): number {
  const transcoder = transcoders.get(template);
  const ctx = session.context;
  ctx.templateId = template.id;
  const [chunk, pos, before] = [out.buf, out.pos, records.length];
  const n = eachRecord(buf, start, end, transcoder.minLength, (p) => {
    const next = transcoder.transcode(buf, p, end, ctx, out);
    if (next >= 0) records.push({ key: out.key(), value: out.value() });
    return next;
  });
  if (n < 0) {
    records.length = before;
    out.rewind(chunk, pos);
  }
  return n;
}

interface OptionsReader {
  readonly scan: ScanRecord;
  readonly minLength: number;
  readonly starts: Int32Array;
  readonly lengths: Int32Array;
  /** Field index of an 8-byte systemInitTimeMilliseconds, or -1. */
  readonly initIndex: number;
}

const optionsReaders = new WeakMap<Template, OptionsReader>();

function optionsReader(template: Template): OptionsReader {
  let r = optionsReaders.get(template);
  if (r === undefined) {
    const n = template.fields.length;
    const initIndex = template.fields.findIndex((f) => f.ie.pen === 0 && f.ie.id === SYSTEM_INIT_TIME_ID && f.length === 8);
    // Options records are few: scanned, never compiled, whatever the exporter defines.
    r = { scan: interpretedScanner(template), minLength: layoutShape(template).minLength, starts: new Int32Array(n), lengths: new Int32Array(n), initIndex };
    optionsReaders.set(template, r);
  }
  return r;
}

/** Returns how many options records the set holds, or -1 when it does not fit the layout. */
function readOptionsRecords(session: ExporterSession, template: Template, buf: Buffer, start: number, end: number): number {
  const r = optionsReader(template);
  let init: number | undefined;
  const n = eachRecord(buf, start, end, r.minLength, (p) => {
    const next = r.scan(buf, p, end, r.starts, r.lengths);
    if (next >= 0 && r.initIndex >= 0) init = Number(buf.readBigUInt64BE(r.starts[r.initIndex]!));
    return next;
  });
  if (n > 0 && init !== undefined && Number.isSafeInteger(init)) {
    session.systemInitTime.set(template.observationDomainId, init);
    session.context.systemInitTime = init;
  }
  return n;
}
