import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FLOW_LOG_FIELDS } from '../row/columns.js';
import { type FlowRow, toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, flowRecord } from '../testing/records.js';
import { csvField, csvLineFormatter, prettyPolicyType, prettyProtocol, prettyRuleAction } from './csv.js';

describe('flow log CSV', () => {
  it('prints the 30 fields with prettyPrint names', () => {
    const line = csvLineFormatter(true)(toFlowRow(aggregatedRecord(3), ''));
    assert.equal(
      line,
      '1700000003,1700000008,10.1.0.3,10.2.0.1,10003,5201,TCP,client-3,perf,node-a,server,perf,node-b,10.96.0.10,10.96.0.10,5201,perf/server:5201,' +
        'deny-all,perf,rule-deny,Reject,AntreaNetworkPolicy,,,,,,,,\n',
    );
    assert.equal(line.split(',').length, 30);
  });

  it('prints the fields in the order of FLOW_LOG_FIELDS', () => {
    // Every field of the row a value of its own, so that any field out of place shows.
    const row = Object.fromEntries(Object.keys(toFlowRow(aggregatedRecord(0), '')).map((k, i) => [k, typeof toFlowRow(aggregatedRecord(0), '')[k as keyof FlowRow] === 'string' ? `s${i}` : 1000 + i])) as unknown as FlowRow;
    const fields = csvLineFormatter(false)(row).trimEnd().split(',');
    assert.deepEqual(fields, FLOW_LOG_FIELDS.map((name) => String(row[name])));
  });

  it('prints numbers without prettyPrint', () => {
    const fields = csvLineFormatter(false)(toFlowRow(aggregatedRecord(3), '')).trimEnd().split(',');
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
    const line = csvLineFormatter(true)(toFlowRow(flowRecord({ sourcePodName: 'evil\n1,2,3' }), ''));
    assert.equal(line.split('\n').length, 3);
    assert.ok(line.includes('"evil\n1,2,3"'));
  });
});
