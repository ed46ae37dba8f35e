// Aggregate mode and NetFlow: a router's or hypervisor's record of a flow is written out as it came, at once,
// and never meets the Antrea half that has its 5-tuple (no correlation, no aggregation, no clock source).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LogRecord } from '../lib/log/types.js';
import { componentLogger } from '../lib/telemetry/logger.js';
import { FlowRecordScanner } from '../schemas/flow-record-scanner.js';
import { aggregatorSettings, decodeOutput, flowRecordValue } from './testing/fakes.js';
import { AggregateWork } from './work.js';

const logger = componentLogger('pass-through-test');
const TUPLE = { src: '10.0.0.1', dst: '10.0.0.2', sport: 1234, dport: 80, proto: 6, start: 1_700_000_000, end: 1_700_000_010 };
const antreaHalf = { ...TUPLE, flowType: 2, sourcePodName: 'client', destinationPodName: '', packetDeltaCount: 10, octetDeltaCount: 1000 };
const routerRecord = { ...TUPLE, transport: 'netflow_v9', exporter: '192.0.2.254', observationDomainId: 7, packetDeltaCount: 3, octetDeltaCount: 300, ingressInterface: 4, tcpControlBits: 0x1b, samplingInterval: 100 };

let offset = 0;
const logRecord = (value: Buffer): LogRecord => ({ topic: 'flows.raw', partition: 0, offset: offset++, key: Buffer.from('k'), value, timestamp: 0, headers: {} });

function work(budget = 100): AggregateWork {
  return new AggregateWork(aggregatorSettings(), { scanner: new FlowRecordScanner(), metadata: { metadata: undefined, podLabels: false, includeK8sUIDs: false }, framing: { kind: 'single-object' }, logger, budget });
}

test('a NetFlow record passes through aggregate mode as it came; the Antrea half with its 5-tuple still waits for its peer', () => {
  const w = work();
  const router = flowRecordValue(routerRecord);
  assert.equal(w.accept(logRecord(flowRecordValue(antreaHalf))), true);
  assert.equal(w.accept(logRecord(router)), true);
  const [passed, ...rest] = w.takeOutputs();
  assert.deepEqual(rest, [], 'the Antrea half is not exported before its peer or its timeout');
  assert.deepEqual(passed!.value, router, 'the same bytes (same schema, same framing)');
  assert.deepEqual(passed!.key, Buffer.from('k'));
  assert.equal(w.passedThrough, 1);
  assert.equal(w.flows, 1, 'only the Antrea half is held');
  assert.equal(w.aggregator.counters.records, 1);
  assert.equal(w.flush(), true);
  const [antrea] = w.takeOutputs().map((o) => decodeOutput(o.value as Buffer));
  assert.deepEqual([antrea!.packetDeltaCount, antrea!.octetDeltaCount, antrea!.sourcePodName, antrea!.ingressInterface, antrea!.tcpControlBits], [10, 1000, 'client', null, null], 'nothing of the router\'s record');
  const record = decodeOutput(passed!.value as Buffer);
  assert.deepEqual([record.transport, record.exporterAddress, record.observationDomainId, record.packetDeltaCount, record.samplingInterval], ['netflow_v9', '192.0.2.254', 7, 3, 100]);
});

test('pass-through records count against the commit budget: the record is offered again after a commit, not lost or doubled', () => {
  const w = work(2);
  const router = flowRecordValue(routerRecord);
  assert.equal(w.accept(logRecord(router)), true);
  assert.equal(w.accept(logRecord(router)), true);
  assert.equal(w.accept(logRecord(router)), false, 'two pending: commit first');
  assert.equal(w.takeOutputs().length, 2);
  assert.equal(w.accept(logRecord(router)), true);
  assert.equal(w.takeOutputs().length, 1);
  assert.equal(w.passedThrough, 3);
});
