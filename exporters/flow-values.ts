// How exporters read the records of a batch. The runner hands over each record's value as it is in the
// log, with this reader of the topic's framing (single-object, or the schema registry id of
// log.valueFormat confluent): an exporter that writes a format of its own reads the fields it writes in
// place, through the compiled scanner, and allocates nothing per record; one that needs the whole record
// decodes it into an object. Each value is read once, by the exporter as it writes it (scanEach,
// decodeEach): a value that is not a FlowRecord is skipped and told to the batch, whose runner counts
// and logs it. A check of every value by the runner before the exporter read it again had cost a sixth
// of the IPFIX export's CPU.
import type { FlowRecord } from '../schemas/flow-record.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { FlowRecordScanner, type ScannedRecord } from '../schemas/flow-record-scanner.js';
import type { ExportBatch, ExportedRecord } from './types.js';

export class FlowValues {
  readonly #scanner: FlowRecordScanner;
  readonly #decoder: FlowRecordDecoder;

  /** `confluentId`: the registry's id of the current schema, for values framed with it. */
  constructor(confluentId?: number) {
    this.#scanner = new FlowRecordScanner(confluentId);
    this.#decoder = new FlowRecordDecoder(confluentId);
  }

  /** Scans `value` into `into` (reused from record to record); throws a FlowaggError (SCHEMA_*) for a value it cannot read. */
  scan(value: Buffer, into: ScannedRecord): void {
    this.#scanner.scan(value, into);
  }

  decode(value: Buffer): FlowRecord {
    return this.#decoder.decode(value);
  }
}

/** Hands each record of `batch` to `each` with what `read` made of its value; a value `read` throws on is skipped and told to the batch. */
function readEach<T>(batch: ExportBatch, read: (value: Buffer) => T, each: (record: ExportedRecord, read: T) => void): void {
  for (const record of batch.records) {
    let x: T;
    try {
      x = read(record.value);
    } catch (err) {
      batch.unreadable(record, err);
      continue;
    }
    each(record, x);
  }
}

/** Scans each record of `batch` into `into` (reused) and hands the record to `each`. */
export function scanEach(batch: ExportBatch, into: ScannedRecord, each: (record: ExportedRecord, scanned: ScannedRecord) => void): void {
  const { values } = batch;
  readEach(batch, (value) => {
    values.scan(value, into);
    return into;
  }, each);
}

/** Decodes each record of `batch` and hands it to `each` with its FlowRecord. */
export function decodeEach(batch: ExportBatch, each: (record: ExportedRecord, flow: FlowRecord) => void): void {
  const { values } = batch;
  readEach(batch, (value) => values.decode(value), each);
}
