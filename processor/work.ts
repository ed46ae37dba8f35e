// What a partition task does with its input records, by mode: aggregate (an Aggregator, with state and
// a changelog; NetFlow records pass through it unaggregated) or proxy (stateless). Both read records with
// the compiled scanner; a value that is not a
// FlowRecord is counted and skipped (it is already in the log: skipping loses nothing accepted, and
// stopping would stop the partition for good). Ingest's clock ticks (schemas/clock-tick.ts) move the
// aggregation's clock and are no input of their own.
import { isFlowaggError } from '../lib/errors.js';
import { BatchRecord } from '../lib/log/batch-record.js';
import type { LogRecord, ProduceRecord } from '../lib/log/types.js';
import { sampledLogger, type Logger } from '../lib/telemetry/logger.js';
import { RecordBuffer } from '../schemas/record-buffer.js';
import type { AvroFraming } from '../schemas/avro.js';
import { clockTickTime } from '../schemas/clock-tick.js';
import { flowRecordReader, flowRecordWriter } from '../schemas/flow-record.js';
import { type FlowRecordScanner, ScannedRecord } from '../schemas/flow-record-scanner.js';
import { Aggregator, type AggregatorSettings } from './aggregate/aggregator.js';
import type { ChangelogRecords } from './aggregate/changelog-records.js';
import { compileOutputEncoder } from './aggregate/output.js';
import type { MetadataOptions } from './metadata-fill.js';
import { ProxyChanges, proxyChanges, proxyHeader, referenceProxy, spliceRecord } from './proxy/transform.js';
import { flowKeyString, isNetflow } from './record-input.js';

export interface PartitionWork {
  readonly mode: 'aggregate' | 'proxy';
  /**
   * Processes one input record. Returns false when too much waits for a commit to go on (a burst of
   * expiries): the caller commits and offers the same record again.
   */
  accept(record: LogRecord): boolean;
  /** End of input: every flow exported or dropped, within the budget; false when it must commit first. */
  flush(): boolean;
  /** Output records since the last call. */
  takeOutputs(): ProduceRecord[];
  /** A checkpoint of the state for `out`'s partition of processor.state, committed with input offset `inputOffset` (changelog.ts). */
  takeCheckpoint(out: ChangelogRecords, inputOffset: number): void;
  /** The progress record of a commit that takes no checkpoint. */
  takeProgress(out: ChangelogRecords, inputOffset: number): void;
  /** Output records waiting for a commit. */
  readonly pending: number;
  /** Changelog records waiting for the next checkpoint. */
  readonly changed: number;
  readonly flows: number;
  /** Input values that were not FlowRecords. */
  readonly badRecords: number;
  /** Aggregate mode: NetFlow records written out as they came. */
  readonly passedThrough: number;
  readonly aggregator?: Aggregator;
}

export interface WorkDeps {
  readonly scanner: FlowRecordScanner;
  readonly metadata: MetadataOptions;
  readonly framing: AvroFraming;
  readonly logger: Logger;
  /** Records pending beyond which accept() asks for a commit. */
  readonly budget: number;
}

function badRecordReporter(logger: Logger): (record: LogRecord, err: unknown) => void {
  const warn = sampledLogger(logger);
  return (record, err) => {
    if (!isFlowaggError(err)) throw err;
    warn(`bad:${err.code}`, { topic: record.topic, partition: record.partition, offset: record.offset, code: err.code, err: err.message }, 'skipped an input record that is not a readable FlowRecord');
  };
}

const NO_VALUE = Buffer.alloc(0);

/** Scans a record's value, in place when it is still in its batch's bytes: no Buffer made per record. */
export function scanValue(scanner: FlowRecordScanner, record: LogRecord, r: ScannedRecord): void {
  if (record instanceof BatchRecord && record.valueLength >= 0) scanner.scanRange(record.bytes, record.valueStart, record.valueStart + record.valueLength, r);
  else scanner.scan(record.value ?? NO_VALUE, r);
}

/**
 * Writes a record to flows.processed as it came, framed for the output topic: its bytes spliced with the
 * changes asked for (none for a pass-through), or, for records of older writer schemas, re-encoded.
 */
class Forwarder {
  private readonly header: Buffer;
  private readonly out = new RecordBuffer();
  private readonly reader = flowRecordReader();
  private readonly writer;

  constructor(framing: AvroFraming) {
    this.header = proxyHeader(framing);
    this.writer = flowRecordWriter(framing);
  }

  forward(record: LogRecord, r: ScannedRecord, changes: ProxyChanges): ProduceRecord {
    const out = r.spliceable ? spliceRecord(r, changes, this.header, this.out) : referenceProxy(record.value!, changes, this.reader, this.writer);
    return { key: record.key ?? Buffer.from(flowKeyString(r), 'latin1'), value: out };
  }
}

export class AggregateWork implements PartitionWork {
  readonly mode = 'aggregate';
  readonly aggregator: Aggregator;
  badRecords = 0;
  passedThrough = 0;
  private readonly r = new ScannedRecord();
  /** A NetFlow record passed through is scanned again, with the positions splicing needs (records aggregated go without). */
  private readonly passing = new ScannedRecord(true);
  private readonly reportBad: (record: LogRecord, err: unknown) => void;
  private readonly forwarder: Forwarder;
  private readonly unchanged = new ProxyChanges();

  constructor(
    settings: AggregatorSettings,
    private readonly deps: WorkDeps,
  ) {
    this.aggregator = new Aggregator(settings, compileOutputEncoder(deps.framing), deps.metadata);
    this.reportBad = badRecordReporter(deps.logger);
    this.forwarder = new Forwarder(deps.framing);
  }

  accept(record: LogRecord): boolean {
    const ag = this.aggregator;
    const tick = clockTickTime(record);
    if (tick !== undefined) {
      ag.tick(tick);
      return ag.expireDue(this.deps.budget);
    }
    const r = this.r;
    try {
      scanValue(this.deps.scanner, record, r);
    } catch (err) {
      this.reportBad(record, err);
      this.badRecords++;
      return true;
    }
    if (isNetflow(r)) {
      // Not an Antrea half: never correlated nor aggregated, and no source of the partition's clock.
      if (this.pending >= this.deps.budget) return false;
      scanValue(this.deps.scanner, record, this.passing);
      ag.passThrough(this.forwarder.forward(record, this.passing, this.unchanged));
      this.passedThrough++;
      return true;
    }
    const t = ag.observe(r);
    if (!ag.expireDue(this.deps.budget)) return false;
    ag.add(r, t);
    return true;
  }

  flush(): boolean {
    return this.aggregator.flush(this.deps.budget);
  }

  takeOutputs(): ProduceRecord[] {
    return this.aggregator.takeOutputs();
  }

  takeCheckpoint(out: ChangelogRecords, inputOffset: number): void {
    this.aggregator.takeCheckpoint(out, inputOffset);
  }

  takeProgress(out: ChangelogRecords, inputOffset: number): void {
    this.aggregator.takeProgress(out, inputOffset);
  }

  get pending(): number {
    return this.aggregator.pending;
  }

  get changed(): number {
    return this.aggregator.changed;
  }

  get flows(): number {
    return this.aggregator.flows;
  }
}

export class ProxyWork implements PartitionWork {
  readonly mode = 'proxy';
  badRecords = 0;
  readonly passedThrough = 0;
  private readonly r = new ScannedRecord(true);
  private readonly changes = new ProxyChanges();
  private readonly forwarder: Forwarder;
  private outputs: ProduceRecord[] = [];
  private readonly reportBad: (record: LogRecord, err: unknown) => void;

  constructor(private readonly deps: WorkDeps) {
    this.forwarder = new Forwarder(deps.framing);
    this.reportBad = badRecordReporter(deps.logger);
  }

  accept(record: LogRecord): boolean {
    if (clockTickTime(record) !== undefined) return true;
    const r = this.r;
    try {
      scanValue(this.deps.scanner, record, r);
      proxyChanges(r, this.deps.metadata, this.changes);
      this.outputs.push(this.forwarder.forward(record, r, this.changes));
    } catch (err) {
      this.reportBad(record, err);
      this.badRecords++;
    }
    return true;
  }

  flush(): boolean {
    return true;
  }

  takeOutputs(): ProduceRecord[] {
    const out = this.outputs;
    this.outputs = [];
    return out;
  }

  takeCheckpoint(): void {}

  takeProgress(): void {}

  readonly changed = 0;

  get pending(): number {
    return this.outputs.length;
  }

  get flows(): number {
    return 0;
  }
}
