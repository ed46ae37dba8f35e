// The synthetic Antrea workload (simulate/antrea) through the aggregation: every flow's per-Node delta
// counters, summed over its outputs, equal what its records carried, for every kind of flow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlowRecordEncoder } from '../../simulate/antrea/records.js';
import { antreaWorkload } from '../../simulate/antrea/workload.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { aggregatorSettings, decodeOutput } from '../testing/fakes.js';
import { Aggregator } from './aggregator.js';
import { compileOutputEncoder } from './output.js';

test('per flow, the deltas of the outputs add up to the records\' totals, from each Node', () => {
  const w = antreaWorkload({ nodes: 6, flows: 2000, seed: 11, ipv6Share: 0.2 });
  const ag = new Aggregator(aggregatorSettings(), compileOutputEncoder(), { metadata: undefined, podLabels: false, includeK8sUIDs: false });
  const encoder = new FlowRecordEncoder();
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const flowOfKey = new Map<string, number>();
  for (const rec of w.records()) {
    const { key, value } = encoder.flowRecord(rec);
    flowOfKey.set(key.toString('hex'), rec.flow);
    scanner.scan(value, r);
    ag.process(r);
  }
  ag.flush();
  const sums = new Map<number, { src: number; dst: number; common: number; exports: number }>();
  for (const o of ag.takeOutputs()) {
    const out = decodeOutput(o.value as Buffer);
    const flow = flowOfKey.get((o.key as Buffer).toString('hex'))!;
    const s = sums.get(flow) ?? { src: 0, dst: 0, common: 0, exports: 0 };
    s.src += out.packetDeltaCountFromSourceNode as number;
    s.dst += out.packetDeltaCountFromDestinationNode as number;
    s.exports++;
    sums.set(flow, s);
  }
  assert.equal(sums.size, w.flowCount, 'every flow exported');
  assert.equal(ag.counters.stale, 0);
  for (let i = 0; i < w.flowCount; i++) {
    const plan = w.flow(i);
    const s = sums.get(i)!;
    const halves = new Set(plan.reporters.map((x) => x.half));
    const bothFilled = plan.reporters.length === 1;
    assert.equal(s.src, halves.has('source') || bothFilled ? plan.totals.packets : 0, `flow ${i} (${plan.kind}) from the source Node`);
    assert.equal(s.dst, halves.has('destination') || bothFilled ? plan.totals.packets : 0, `flow ${i} (${plan.kind}) from the destination Node`);
  }
  assert.equal(ag.counters.correlated, [...Array(w.flowCount).keys()].filter((i) => w.flow(i).reporters.length === 2).length, 'every two-Node flow correlated');
  assert.equal(ag.counters.uncorrelatedExported, 0, 'no half left waiting for its peer');
});
