// The Agents' streams in any interleaving: each Agent's records in its own order, the Agents' merged
// every which way (one read far faster than another, one entirely before the others), ingest's receive
// time going on as they arrive. Within the allowed lateness, or within Antrea's retries in receive time,
// the aggregation gives every flow the same per-Node sums, every two-Node flow correlated, nothing
// exported alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { FlowRecordEncoder } from '../../simulate/antrea/records.js';
import { type AgentRecord, antreaWorkload } from '../../simulate/antrea/workload.js';
import { FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import { aggregatorSettings, decodeOutput } from '../testing/fakes.js';
import { Aggregator } from './aggregator.js';
import { compileOutputEncoder } from './output.js';

const w = antreaWorkload({ nodes: 4, flows: 80, recordsPerHalf: 8, seed: 5, ipv6Share: 0.2 });
const byNode = w.nodes.map((n) => [...w.records()].filter((r) => r.node.index === n.index));
const first = Math.min(...byNode.map((records) => records[0]!.exportTime)) * 1000;
const total = byNode.reduce((n, records) => n + records.length, 0);

/** Merges the Agents' streams by `picks` (an Agent per step, among those with records left), each in order. */
function interleave(picks: readonly number[]): AgentRecord[] {
  const next = byNode.map(() => 0);
  const out: AgentRecord[] = [];
  for (let i = 0; out.length < total; i++) {
    const left = byNode.map((_, n) => n).filter((n) => next[n]! < byNode[n]!.length);
    const n = left[(picks[i % Math.max(1, picks.length)] ?? 0) % left.length]!;
    out.push(byNode[n]![next[n]!++]!);
  }
  return out;
}

/** Node 3's stream after all the others': a source the clock has not seen, its records far behind the partition's time. */
const lastNodeLast = (): AgentRecord[] => [...byNode.slice(0, 3).flat().sort((a, b) => a.exportTime - b.exportTime), ...byNode[3]!];

function run(records: readonly AgentRecord[], receiveStepMs: number, allowedLatenessMs = 120_000): { sums: Map<number, number[]>; ag: Aggregator } {
  const ag = new Aggregator(
    aggregatorSettings({ activeMs: 5000, inactiveMs: 10_000, allowedLatenessMs, clock: { idleMs: 15_000, maxAheadMs: 3_600_000, maxSources: 100 } }),
    compileOutputEncoder(),
    { metadata: undefined, podLabels: false, includeK8sUIDs: false },
  );
  const encoder = new FlowRecordEncoder();
  const scanner = new FlowRecordScanner();
  const r = new ScannedRecord();
  const flowOfKey = new Map<string, number>();
  records.forEach((rec, i) => {
    const { key, value } = encoder.flowRecord(rec, first + i * receiveStepMs);
    flowOfKey.set(key.toString('hex'), rec.flow);
    scanner.scan(value, r);
    ag.process(r);
  });
  ag.flush();
  const sums = new Map<number, number[]>();
  for (const o of ag.takeOutputs()) {
    const out = decodeOutput(o.value as Buffer);
    const flow = flowOfKey.get((o.key as Buffer).toString('hex'))!;
    const s = sums.get(flow) ?? [0, 0];
    s[0]! += out.packetDeltaCountFromSourceNode as number;
    s[1]! += out.packetDeltaCountFromDestinationNode as number;
    sums.set(flow, s);
  }
  return { sums, ag };
}

test('every interleaving of the Agents\' streams gives every flow its exact per-Node sums, correlated', () => {
  const twoNode = [...Array(w.flowCount).keys()].filter((i) => w.flow(i).reporters.length === 2).length;
  fc.assert(fc.property(fc.array(fc.nat(), { maxLength: total }), fc.integer({ min: 0, max: 200 }), (picks, receiveStepMs) => {
    const { sums, ag } = run(interleave(picks), receiveStepMs);
    for (let i = 0; i < w.flowCount; i++) {
      const plan = w.flow(i);
      const halves = new Set(plan.reporters.map((x) => x.half));
      const single = plan.reporters.length === 1;
      const expected = [halves.has('source') || single ? plan.totals.packets : 0, halves.has('destination') || single ? plan.totals.packets : 0];
      assert.deepEqual(sums.get(i), expected, `flow ${i} (${plan.kind})`);
    }
    assert.equal(ag.counters.correlated, twoNode, 'every two-Node flow correlated once');
    assert.deepEqual([ag.counters.uncorrelatedExported, ag.counters.stale], [0, 0]);
  }), { numRuns: 40, seed: 20261201, examples: [[[], 0], [[0], 0], [[3], 200]] });
});

test('a source first read after the others ran ahead finds its peers waiting, within the retries in receive time', () => {
  const span = byNode[3]!.at(-1)!.exportTime - byNode[3]![0]!.exportTime;
  assert.ok(span > 10, `Node 3's stream spans ${span} s of event time, more than the retries' 10 s`);
  // 1 ms between records: the whole input within the retries' 10 s of receive time, no lateness allowed.
  const { ag } = run(lastNodeLast(), 1, 0);
  const twoNode = [...Array(w.flowCount).keys()].filter((i) => w.flow(i).reporters.some((x) => x.node.index === 3) && w.flow(i).reporters.length === 2).length;
  assert.ok(twoNode > 0);
  assert.ok(ag.counters.late > 0, 'Node 3\'s records came behind the partition\'s time');
  assert.equal(ag.counters.uncorrelatedExported, 0);
  // Read 100 ms apart, Node 3's first record comes long after its peers' retries ran out in receive time too.
  const slow = run(lastNodeLast(), 100, 0).ag;
  assert.ok(slow.counters.uncorrelatedExported >= twoNode, `${slow.counters.uncorrelatedExported} halves exported alone, ${twoNode} flows with Node 3`);
});
