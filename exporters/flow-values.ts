// How exporters read the records of a batch. The runner hands over each record's value as it is in the
// log (checked once by scanning it), with this reader of the topic's framing (single-object, or the
// schema registry id of log.valueFormat confluent): an exporter that writes a format of its own reads
// the fields it writes in place, through the compiled scanner, and allocates nothing per record; one
// that needs the whole record decodes it into an object.
import type { FlowRecord } from '../schemas/flow-record.js';
import { FlowRecordDecoder } from '../schemas/flow-record-decoder.js';
import { FlowRecordScanner, type ScannedRecord } from '../schemas/flow-record-scanner.js';

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
