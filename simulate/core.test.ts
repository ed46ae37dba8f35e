// The pure core of `flowagg simulate` without any I/O: the schedule walks the workload's flows generation
// after generation in time order, a Node that is down skips its records and its next one carries their
// counts, and the ledger's sums are what was sent, per Node and per flow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { antreaWorkload, type AgentRecord } from './antrea/workload.js';
import { DeltaCarry } from './carry.js';
import { DELTA_COUNTERS, DELTA_INDEXES } from './counters.js';
import { Ledger } from './ledger.js';
import { Schedule } from './schedule.js';

const options = { nodes: 5, flows: 300, recordsPerHalf: 4, exportIntervalS: 5, seed: 9, ipv6Share: 0.2, startTime: 1_800_000_000 };

test('the schedule: records in export-time order across generations, each flow half round after round, M flows running', () => {
  const w = antreaWorkload(options);
  const schedule = new Schedule(w);
  const taken: AgentRecord[] = [];
  // Five generations' worth.
  while (taken.length < w.recordCount * 5) taken.push(schedule.take());
  for (let i = 1; i < taken.length; i++) assert.ok(taken[i]!.exportTime >= taken[i - 1]!.exportTime, `record ${i} out of time order`);
  const generations = new Set(taken.map((r) => Math.floor(r.flow / options.flows)));
  assert.deepEqual([...generations].sort(), [0, 1, 2, 3, 4, 5].slice(0, generations.size));
  assert.ok(generations.size >= 5);
  const rounds = new Map<string, number[]>();
  for (const r of taken) rounds.set(`${r.flow}/${r.half}`, [...(rounds.get(`${r.flow}/${r.half}`) ?? []), r.round]);
  for (const [half, seen] of rounds) assert.deepEqual(seen, seen.map((_, k) => seen[0]! + k), `${half}: rounds in order, none missing`);
  // Steady state: in any one export interval of the third generation's life, about M flows send a record.
  const t0 = taken.find((r) => r.flow >= 2 * options.flows)!.exportTime + 10;
  const live = new Set(taken.filter((r) => r.exportTime >= t0 && r.exportTime < t0 + options.exportIntervalS).map((r) => r.flow));
  assert.ok(live.size > options.flows * 0.85 && live.size < options.flows * 1.15, `${live.size} flows sent in one interval, ${options.flows} running`);
});

test('a skipped record\'s counts go with the Node\'s next record of the flow; the ledger sums what was sent', () => {
  const w = antreaWorkload(options);
  const schedule = new Schedule(w);
  const carry = new DeltaCarry(options.recordsPerHalf);
  const ledger = new Ledger(options.nodes, { perFlow: true });
  const skippedPerNode = new Array<number>(options.nodes).fill(0);
  /** Per flow half: the last round sent, and whether the half ended (its last round sent or skipped). */
  const lastSent = new Map<string, number>();
  const ended = new Set<string>();
  // node-1 is down for three intervals of the first generation; every 7th record of node-3 is skipped.
  const start = schedule.nextDue() / 1000;
  for (let i = 0; i < w.recordCount * 2; i++) {
    const r = schedule.take();
    const key = `${r.flow}/${r.half}`;
    if (r.round === options.recordsPerHalf - 1) ended.add(key);
    if ((r.node.index === 1 && r.exportTime >= start + 3 && r.exportTime < start + 18) || (r.node.index === 3 && i % 7 === 0)) {
      carry.skip(r);
      ledger.skipped(r, 'unavailable');
      skippedPerNode[r.node.index]!++;
    } else {
      carry.send(r);
      ledger.sent(r);
      lastSent.set(key, r.round);
    }
  }
  assert.ok(skippedPerNode[1]! > 100 && skippedPerNode[3]! > 100);
  assert.deepEqual(ledger.nodes.map((n) => n.skipped), skippedPerNode);
  assert.equal(ledger.skippedRecords.unavailable, skippedPerNode.reduce((a, b) => a + b));
  const flows = ledger.flows(w)!;
  let checked = 0;
  for (const f of flows) {
    const plan = w.flow(f.flow);
    for (const half of ['source', 'destination'] as const) {
      const sums = f[half];
      if (sums === undefined) continue;
      // What the Node reported of the flow adds up to its totals at its last record sent.
      const last = lastSent.get(`${f.flow}/${half}`)!;
      assert.equal(sums.packetDeltaCount, plan.rate.packets * (last + 1), `flow ${f.flow} ${half}: packets`);
      assert.equal(sums.reverseOctetDeltaCount, plan.rate.reverseOctets * (last + 1), `flow ${f.flow} ${half}: reverse octets`);
      checked++;
    }
  }
  assert.ok(checked > options.flows, `${checked} flow halves checked`);
  for (const c of DELTA_COUNTERS) {
    assert.equal(ledger.nodes.reduce((a, n) => a + n[c], 0), ledger.totals[c], `${c}: the Nodes add up to the total`);
    assert.equal(flows.reduce((a, f) => a + (f.source?.[c] ?? 0) + (f.destination?.[c] ?? 0), 0), ledger.totals[c], `${c}: the flows add up to the total`);
  }
  assert.equal(carry.open, [...lastSent.keys()].filter((k) => !ended.has(k)).length, 'the carry holds only halves still running');
});

test('aligned to a later start, every time of the workload moves by the same whole seconds', () => {
  const w = antreaWorkload(options);
  const planned = [...w.records()].slice(0, 50);
  const schedule = new Schedule(w);
  const first = schedule.nextDue();
  schedule.alignTo(first + 42_700);
  assert.equal(schedule.nextDue(), first + 42_000);
  for (const p of planned) {
    const r = schedule.take();
    assert.equal(r.exportTime, p.exportTime + 42);
    assert.deepEqual([r.values[0], r.values[1]], [(p.values[0] as number) + 42, (p.values[1] as number) + 42], 'flowStartSeconds, flowEndSeconds');
    assert.deepEqual(r.values.slice(2), p.values.slice(2));
  }
  const early = new Schedule(antreaWorkload(options));
  early.alignTo(0);
  assert.equal(early.nextDue(), first, 'never moved back');
});

test('the delta indexes are the template\'s delta counters', () => {
  const r = antreaWorkload({ ...options, flows: 1 }).records().next().value!;
  const plan = antreaWorkload({ ...options, flows: 1 }).flow(0);
  assert.deepEqual(DELTA_INDEXES.map((i) => r.values[i]), [plan.rate.packets, plan.rate.octets, plan.rate.reversePackets, plan.rate.reverseOctets]);
});
