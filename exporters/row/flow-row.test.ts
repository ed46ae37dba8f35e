import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { aggregatedRecord, flowRecord } from '../testing/records.js';
import { toFlowRow } from './flow-row.js';

describe('toFlowRow', () => {
  it('converts an aggregated record after an Avro round trip, as GetFlowRecord does', () => {
    const record = flowRecordReader().decode(flowRecordWriter().encode(aggregatedRecord(3)));
    const row = toFlowRow(record, 'a0c1f1d2-5b3c-4c2e-9e1a-0123456789ab');
    assert.equal(row.flowStartSeconds, 1_700_000_003);
    assert.equal(row.flowEndSeconds, 1_700_000_008);
    assert.equal(row.flowEndSecondsFromSourceNode, 1_700_000_008);
    assert.equal(row.flowEndSecondsFromDestinationNode, 1_700_000_007);
    assert.equal(row.sourceIP, '10.1.0.3');
    assert.equal(row.destinationIP, '10.2.0.1');
    assert.equal(row.destinationClusterIP, '10.96.0.10');
    assert.equal(row.destinationServiceIP, '10.96.0.10');
    assert.equal(row.octetTotalCount, 600);
    assert.equal(row.reverseThroughputFromDestinationNode, 100_005);
    assert.equal(row.ingressNetworkPolicyRuleAction, 3);
    assert.equal(row.tcpState, 'ESTABLISHED');
    assert.equal(row.sourcePodLabels, '{"app":"client","i":"3"}');
    assert.equal(row.clusterUUID, 'a0c1f1d2-5b3c-4c2e-9e1a-0123456789ab');
  });

  it('writes IPv6 addresses in RFC 5952 text', () => {
    const row = toFlowRow(aggregatedRecord(9), '');
    assert.equal(row.sourceIP, 'fd00::a01:9');
    assert.equal(row.destinationClusterIP, 'fd00::a');
  });

  it('gives 0 and "" for what the record lacks, and "" for an unspecified Service address', () => {
    const row = toFlowRow(flowRecord({ destinationClusterIPv4: Buffer.alloc(4), sourceIPv4Address: Buffer.alloc(4) }), '');
    assert.equal(row.destinationClusterIP, '');
    assert.equal(row.sourceIP, '0.0.0.0');
    assert.equal(row.destinationIP, '');
    assert.equal(row.packetTotalCount, 0);
    assert.equal(row.flowStartSeconds, 0);
    assert.equal(row.sourcePodLabels, '');
    assert.equal(row.tcpState, '');
  });

  it('reads a counter beyond 2^53 back from extras, exactly', () => {
    const big = Buffer.from('ffffffffffffff00', 'hex');
    const row = toFlowRow(flowRecord({ octetTotalCount: null, extras: [{ pen: 0, id: 85, value: big }] }), '');
    assert.equal(row.octetTotalCount, 0xffffffffffffff00n);
    assert.equal(row.packetTotalCount, 0);
  });
});
