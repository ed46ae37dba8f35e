// One message of a session (an IPFIX message, or a NetFlow v9 or v5 packet) → FlowRecords for flows.raw. The
// codec walks the sets (RFC 7011 §3.3, RFC 3954 §5) and learns templates into the session's store as they come;
// data records are not decoded into objects: each goes through its layout's shared transcoder, which writes
// the flow key and the Avro value straight from the message's bytes into a shared RunWriter. Options data
// records are not flows: they are read only for systemInitTimeMilliseconds, which uptime-relative flow times
// need (a NetFlow header carries the boot time itself), and for the sampling the exporter announces.
//
// A data set must be a whole number of records of its template plus zero padding (RFC 7011 §3.3.1). One
// that is not was written with another layout than the one known here (a redefinition that reached this
// replica late, or corruption): its records would be garbage, so the whole set is skipped and counted
// (FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH), never written.
import { type DataSetVisitor, type ScannedMessage, scanMessage } from '../lib/ipfix/decode-message.js';
import { IPFIX_ERR, IpfixError, type IpfixErrorCode } from '../lib/ipfix/errors.js';
import { readMessageHeader } from '../lib/ipfix/message-header.js';
import { type NetflowHeader, readNetflowV5Header, readNetflowV9Header } from '../lib/ipfix/netflow-header.js';
import { scanNetflowV5, scanNetflowV9 } from '../lib/ipfix/netflow-message.js';
import { interpretedScanner, layoutShape, type ScanRecord } from '../lib/ipfix/record-layout.js';
import type { TemplateStore } from '../lib/ipfix/template-store.js';
import type { MessageHeader, Template } from '../lib/ipfix/types.js';
import { unsignedAt } from './records/ipfix-read.js';
import type { RunWriter, WrittenRuns } from './records/run-writer.js';
import type { TranscoderCache } from './records/transcoder-cache.js';
import type { ExporterSession, SessionProtocol } from './session.js';

/** IANA systemInitTimeMilliseconds. */
const SYSTEM_INIT_TIME_ID = 160;
/** IANA elements of announced sampling: samplerId, samplingInterval, samplerRandomInterval, samplingPacketInterval, samplingPacketSpace. */
const SAMPLING = { samplerId: 48, interval: 34, randomInterval: 50, packetInterval: 305, packetSpace: 306 } as const;

interface Protocol {
  /** Reads the header (the walk reads it again: it is 16 to 24 bytes); throws IpfixError when it is unusable. */
  readonly header: (buf: Buffer) => MessageHeader | NetflowHeader;
  readonly scan: (buf: Buffer, store: TemplateStore, visit: DataSetVisitor) => ScannedMessage;
}

const PROTOCOLS: Readonly<Record<SessionProtocol, Protocol>> = {
  ipfix: { header: readMessageHeader, scan: scanMessage },
  netflow_v9: { header: readNetflowV9Header, scan: scanNetflowV9 },
  netflow_v5: { header: readNetflowV5Header, scan: (buf, _store, visit) => scanNetflowV5(buf, visit) },
};

/** A set skipped whole, whose records cannot be counted (unknown template, layout mismatch, reserved set id). */
export interface SkippedSet {
  readonly reason: IpfixErrorCode;
  readonly bytes: number;
}

/** `runs` hold the flow key and framed Avro FlowRecord of every flow data record. */
export interface TranscodedMessage extends ScannedMessage, WrittenRuns {
  readonly optionsRecords: number;
  readonly skipped: SkippedSet[];
  /** Whether the message held any data set (flows or options, decoded or skipped). */
  readonly hasData: boolean;
}

/** The facts every record of the message needs, into the session's context. */
function applyHeader(session: ExporterSession, header: MessageHeader | NetflowHeader, receiveTime: number): void {
  const ctx = session.context;
  const odid = header.observationDomainId;
  ctx.exportTime = header.exportTime;
  ctx.sequenceNumber = header.sequenceNumber;
  ctx.observationDomainId = odid;
  ctx.receiveTime = receiveTime;
  if ('sysUpTime' in header) {
    ctx.systemInitTime = header.systemInitTime;
    ctx.upTime = header.sysUpTime;
    if (header.samplingInterval > 0) session.samplingOf(odid).announce(-1, header.samplingInterval);
  } else {
    ctx.systemInitTime = session.systemInitTime.get(odid);
    ctx.upTime = undefined;
  }
  ctx.sampling = session.sampling.get(odid);
}

/** Throws IpfixError when the header is unusable (nothing in the message can be trusted then). */
export function transcodeMessage(session: ExporterSession, buf: Buffer, writer: RunWriter, receiveTime: number, transcoders: TranscoderCache): TranscodedMessage {
  const protocol = PROTOCOLS[session.protocol];
  // The header is read before the walk because every record's transcoding needs its export time and sequence.
  const header = protocol.header(buf);
  applyHeader(session, header, receiveTime);
  writer.rewind(0);
  const skipped: SkippedSet[] = [];
  let optionsRecords = 0;
  let hasData = false;
  const scanned = protocol.scan(buf, session.templates, (template, b, start, end, setIndex, errors) => {
    hasData = true;
    const n = template.scopeFieldCount > 0
      ? readOptionsRecords(session, template, b, start, end)
      : transcodeDataSet(session, transcoders, template, b, start, end, writer);
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
  return { ...scanned, ...writer.take(), optionsRecords, skipped, hasData };
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
  session: ExporterSession, transcoders: TranscoderCache, template: Template, buf: Buffer, start: number, end: number, writer: RunWriter,
): number {
  const transcoder = transcoders.get(template);
  const ctx = session.context;
  ctx.templateId = template.id;
  const out = writer.out;
  const [chunk, pos, before] = [out.buf, out.pos, writer.records];
  const n = eachRecord(buf, start, end, transcoder.minLength, (p) => {
    const next = transcoder.transcode(buf, p, end, ctx, out);
    if (next >= 0) writer.added();
    return next;
  });
  if (n < 0) {
    writer.rewind(before);
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
  /** Field indexes of the sampling elements (integers of 1 to 4 bytes), or -1. */
  readonly sampling: Readonly<Record<keyof typeof SAMPLING, number>>;
}

const optionsReaders = new WeakMap<Template, OptionsReader>();

function optionsReader(template: Template): OptionsReader {
  let r = optionsReaders.get(template);
  if (r === undefined) {
    const n = template.fields.length;
    const indexOf = (id: number, fits: (length: number) => boolean) => template.fields.findIndex((f) => f.ie.pen === 0 && f.ie.id === id && fits(f.length));
    const integer = (length: number) => length >= 1 && length <= 4;
    const sampling = Object.fromEntries(Object.entries(SAMPLING).map(([name, id]) => [name, indexOf(id, integer)])) as Record<keyof typeof SAMPLING, number>;
    // Options records are few: scanned, never compiled, whatever the exporter defines.
    r = { scan: interpretedScanner(template), minLength: layoutShape(template).minLength, starts: new Int32Array(n), lengths: new Int32Array(n), initIndex: indexOf(SYSTEM_INIT_TIME_ID, (l) => l === 8), sampling };
    optionsReaders.set(template, r);
  }
  return r;
}

/** The sampling an options record announces: [samplerId or -1, 1 in how many packets] (-1 when it says none). */
function announcedSampling(r: OptionsReader, buf: Buffer): [number, number] {
  const value = (i: number) => (i < 0 ? -1 : unsignedAt(buf, r.starts[i]!, r.lengths[i]!));
  const s = r.sampling;
  const sampler = value(s.samplerId);
  const interval = Math.max(value(s.interval), value(s.randomInterval));
  if (interval >= 1) return [sampler, interval];
  // samplingPacketInterval packets selected in every (interval + space): 1 in (interval + space) / interval.
  const [selected, skipped] = [value(s.packetInterval), value(s.packetSpace)];
  return [sampler, selected >= 1 && skipped >= 0 ? Math.round((selected + skipped) / selected) : -1];
}

/** Returns how many options records the set holds, or -1 when it does not fit the layout. */
function readOptionsRecords(session: ExporterSession, template: Template, buf: Buffer, start: number, end: number): number {
  const r = optionsReader(template);
  const odid = template.observationDomainId;
  let init: number | undefined;
  // Applied once the set is known to fit its layout (else its values are garbage).
  const announced: [number, number][] = [];
  const n = eachRecord(buf, start, end, r.minLength, (p) => {
    const next = r.scan(buf, p, end, r.starts, r.lengths);
    if (next < 0) return next;
    if (r.initIndex >= 0) init = Number(buf.readBigUInt64BE(r.starts[r.initIndex]!));
    const sampling = announcedSampling(r, buf);
    if (sampling[1] >= 1) announced.push(sampling);
    return next;
  });
  if (n <= 0) return n;
  for (const [sampler, interval] of announced) session.samplingOf(odid).announce(sampler, interval);
  if (announced.length > 0) session.context.sampling = session.sampling.get(odid);
  // A NetFlow header says the boot time of every packet itself.
  if (init !== undefined && Number.isSafeInteger(init) && session.protocol === 'ipfix') {
    session.systemInitTime.set(odid, init);
    session.context.systemInitTime = init;
  }
  return n;
}
