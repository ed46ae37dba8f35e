// What a data record's FlowRecord needs besides its own bytes and template layout: where it came from and facts
// of the IPFIX message and data set that carried it. The ingest service keeps one object per session and updates
// it for each message and data set. Transcoders are compiled per template layout and shared by every session, so
// nothing of a session or a template id is built into them: it is all read from here.
import { FLOW_RECORD_FIELDS, FLOW_RECORD_TYPE, type RecordOrigin } from '../../schemas/flow-record.js';
import type { SamplingTable } from './sampling.js';

export interface MessageContext {
  /** The session's origin, with its Avro encoding made once. */
  origin: EncodedOrigin;
  /** Observation domain of the message header. */
  observationDomainId: number;
  /** Template of the data set being transcoded. */
  templateId: number;
  /** Export time of the message header, seconds since the Unix epoch. */
  exportTime: number;
  sequenceNumber: number;
  /** When the collector received the message, ms since the Unix epoch. */
  receiveTime: number;
  /**
   * systemInitTimeMilliseconds the exporter announced for this observation domain (usually in an options record),
   * for records timed with flowStart/EndSysUpTime; undefined while unknown.
   */
  systemInitTime: number | undefined;
  /**
   * NetFlow: the packet header's sysUpTime (ms), so that a flow time from before the 32-bit counter wrapped
   * (49.7 days) is still read as before it; undefined for IPFIX, whose SysUpTime times are plain offsets.
   */
  upTime: number | undefined;
  /** The sampling the exporter announced for the domain, for records that do not carry samplingInterval. */
  sampling: SamplingTable | undefined;
}

export interface EncodedOrigin extends RecordOrigin {
  /** The Avro encoding of the FlowRecord fields exporterAddress, exporterPort and transport, which are consecutive. */
  readonly bytes: Buffer;
  readonly view: DataView;
}

/** The FlowRecord fields an origin fills, in schema order. */
export const ORIGIN_FIELDS = ['exporterAddress', 'exporterPort', 'transport'] as const;

const avscFields = (FLOW_RECORD_TYPE as unknown as { fields: { name: string; type: { toBuffer(v: unknown): Buffer } }[] }).fields;
const first = FLOW_RECORD_FIELDS.findIndex((f) => f.name === ORIGIN_FIELDS[0]);
if (ORIGIN_FIELDS.some((name, i) => FLOW_RECORD_FIELDS[first + i]?.name !== name)) {
  throw new Error(`flow-record.avsc: the fields ${ORIGIN_FIELDS.join(', ')} must stay consecutive (the transcoder writes them as one run)`);
}

export function encodeOrigin(origin: RecordOrigin): EncodedOrigin {
  const bytes = Buffer.concat(ORIGIN_FIELDS.map((name, i) => avscFields[first + i]!.type.toBuffer(origin[name])));
  return { ...origin, bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.length) };
}

/** A context for one session, before its first message. */
export function sessionContext(origin: RecordOrigin): MessageContext {
  return { origin: encodeOrigin(origin), observationDomainId: 0, templateId: 0, exportTime: 0, sequenceNumber: 0, receiveTime: 0, systemInitTime: undefined, upTime: undefined, sampling: undefined };
}
