import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFlowRow } from '../row/flow-row.js';
import { aggregatedRecord, flowRecord } from '../testing.js';
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
