// The provenance of a framed FlowRecord (the first fields of flow-record.avsc: exporter address and port,
// transport, observation domain, export time, sequence number, template id, receive time), read without decoding
// the rest, for readers that need only that (the sequence audit reads every record of flows.raw). Avro's binary
// encoding: strings are a zig-zag varint length and the bytes, ints, longs and enums zig-zag varints.
import { SINGLE_OBJECT_MARKER } from '../../schemas/avro.js';
export { transportIndex } from '../../schemas/flow-record.js';

export interface Provenance {
  readonly exporterAddress: string;
  readonly exporterPort: number;
  /** The Transport enum's index (0 unknown, 1 udp, 2 tcp, 3 tls, 4 file, 5 grpc, 6 netflow_v9, 7 netflow_v5). */
  readonly transport: number;
  readonly observationDomainId: number;
  readonly exportTime: number;
  readonly sequenceNumber: number;
  readonly templateId: number;
  readonly receiveTime: number;
}

/** Reads the provenance of a single-object or Confluent framed FlowRecord; undefined when it is neither or cut off. */
export function readProvenance(b: Buffer): Provenance | undefined {
  let p: number;
  if (b.length >= 10 && b[0] === SINGLE_OBJECT_MARKER[0] && b[1] === SINGLE_OBJECT_MARKER[1]) p = 10;
  else if (b.length >= 5 && b[0] === 0) p = 5;
  else return undefined;
  const long = (): number => {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 10 && p < b.length; i++) {
      const byte = b[p++]!;
      n += (byte & 0x7f) * scale;
      if (byte < 0x80) return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      scale *= 128;
    }
    return NaN;
  };
  const length = long();
  if (!(length >= 0) || p + length > b.length) return undefined;
  const exporterAddress = b.toString('utf8', p, p + length);
  p += length;
  const values = [long(), long(), long(), long(), long(), long(), long()];
  if (values.some((v) => Number.isNaN(v))) return undefined;
  const [exporterPort, transport, observationDomainId, exportTime, sequenceNumber, templateId, receiveTime] = values as [number, number, number, number, number, number, number];
  return { exporterAddress, exporterPort, transport, observationDomainId, exportTime, sequenceNumber, templateId, receiveTime };
}
