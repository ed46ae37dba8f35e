import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FlowRecord, flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { randomFlowRecord, seeded } from '../../schemas/testing/random-records.js';
import { FLOW_LOG_FIELDS } from '../row/columns.js';
import { type FlowRow, type FlowRowField, toFlowRow } from '../row/flow-row.js';
import { LineBuffer } from '../row/line-buffer.js';
import { aggregatedRecord, flowRecord } from '../testing/records.js';
import { csvField, csvLineWriter, prettyPolicyType, prettyProtocol, prettyRuleAction } from './csv.js';

const writer = flowRecordWriter();
const scanner = new FlowRecordScanner();
const scanned = new ScannedRecord();
const writers = { pretty: csvLineWriter(true), plain: csvLineWriter(false) };

/** The line the flow log writes for a record. */
function csvLine(record: FlowRecord, pretty: boolean): string {
  scanner.scan(writer.encode(record), scanned);
  const lines = new LineBuffer();
  lines.end(0, (pretty ? writers.pretty : writers.plain)(scanned, lines));
  return lines.bytes(0, 1).toString('utf8');
}

const PRETTY: Partial<Record<FlowRowField, (n: number) => string>> = {
  protocolIdentifier: prettyProtocol,
  ingressNetworkPolicyRuleAction: prettyRuleAction,
  egressNetworkPolicyRuleAction: prettyRuleAction,
  ingressNetworkPolicyType: prettyPolicyType,
  egressNetworkPolicyType: prettyPolicyType,
};

/** The reference: the row's FLOW_LOG_FIELDS, prettyPrint names or numbers, strings quoted by csvField. */
function rowLine(row: FlowRow, pretty: boolean): string {
  const text = (name: FlowRowField) => {
    const v = row[name];
    const fn = PRETTY[name];
    if (pretty && fn !== undefined) return fn(v as number);
    return typeof v === 'string' ? csvField(v) : String(v);
  };
  return FLOW_LOG_FIELDS.map(text).join(',') + '\n';
}

describe('flow log CSV', () => {
  it('prints the 30 fields with prettyPrint names', () => {
    const line = csvLine(aggregatedRecord(3), true);
    assert.equal(
      line,
      '1700000003,1700000008,10.1.0.3,10.2.0.1,10003,5201,TCP,client-3,perf,node-a,server,perf,node-b,10.96.0.10,10.96.0.10,5201,perf/server:5201,' +
        'deny-all,perf,rule-deny,Reject,AntreaNetworkPolicy,,,,,,,,\n',
    );
    assert.equal(line.split(',').length, 30);
  });

  it('prints what toFlowRow gives for each of FLOW_LOG_FIELDS, byte for byte, on random records (escaping, absent fields, IPv6, labels)', () => {
    const reader = flowRecordReader();
    for (let seed = 1; seed <= 2000; seed++) {
      const record = reader.decode(writer.encode(randomFlowRecord(seeded(seed))));
      for (const pretty of [true, false]) assert.equal(csvLine(record, pretty), rowLine(toFlowRow(record, ''), pretty), `seed ${seed}, prettyPrint ${pretty}`);
    }
  });

  it('prints numbers without prettyPrint', () => {
    const fields = csvLine(aggregatedRecord(3), false).trimEnd().split(',');
    assert.equal(fields[6], '6');
    assert.equal(fields[20], '3');
    assert.equal(fields[21], '2');
    assert.equal(fields[25], '0');
  });

  it('names as Antrea does, with Unknown Protocol and Invalid beyond the enums', () => {
    assert.deepEqual([1, 2, 6, 17, 58, 132, 47].map(prettyProtocol), ['ICMP', 'IGMP', 'TCP', 'UDP', 'IPv6-ICMP', 'SCTP', 'Unknown Protocol']);
    assert.deepEqual([0, 1, 2, 3, 4].map(prettyRuleAction), ['', 'Allow', 'Drop', 'Reject', 'Invalid']);
    assert.deepEqual([0, 1, 2, 3, 4, 5].map(prettyPolicyType), ['', 'K8sNetworkPolicy', 'AntreaNetworkPolicy', 'AntreaClusterNetworkPolicy', 'K8sClusterNetworkPolicy', 'Invalid']);
  });

  it('quotes a field that would forge a column or a line', () => {
    assert.equal(csvField('plain-name'), 'plain-name');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    const line = csvLine(flowRecord({ sourcePodName: 'evil\n1,2,3' }), true);
    assert.equal(line.split('\n').length, 3);
    assert.ok(line.includes('"evil\n1,2,3"'));
  });
});
