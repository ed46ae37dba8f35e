import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptySums } from './counters.js';
import { type NodeReport, progressLine, shortfalls, type SimulationReport, summaryText } from './report.js';

const node = (name: string, over: Partial<NodeReport> = {}): NodeReport => ({
  name, observationDomainId: 7, sourceAddress: '127.1.0.1', connected: true, connects: 1, messages: 3, bytes: 900, lost: 0, skipped: 0, lastError: null,
  ...emptySums(), records: 10, packetDeltaCount: 100, octetDeltaCount: 1000, reversePacketDeltaCount: 50, reverseOctetDeltaCount: 500, ...over,
});

const report = (nodes: NodeReport[], lost = 0): SimulationReport => ({
  transport: 'tcp', target: '127.0.0.1:4739', startedAt: '2026-12-01T00:00:00.000Z', durationMs: 10_000, cpuSeconds: 1.5,
  flows: { concurrent: 1000, recordsPerFlow: 5, exportIntervalS: 5, seed: 1 }, rate: { target: 320, natural: 320, achieved: 2 },
  records: { sent: 20, lost, skipped: { late: 0, unavailable: 3 } },
  totals: { records: 20, packetDeltaCount: 200, octetDeltaCount: 2000, reversePacketDeltaCount: 100, reverseOctetDeltaCount: 1000 }, nodes,
});

test('the progress line: elapsed time, records, rate against the target, connections; problems only when there are some', () => {
  const p = { elapsedMs: 12_345, sent: 3840, lastSecond: 321, target: 320, connected: 6, nodes: 6, lost: 0, skipped: 0, behindMs: 300 };
  assert.equal(progressLine(p), 'simulate 12s, 3,840 records sent, 321/s (target 320/s), 6/6 Nodes connected');
  assert.equal(progressLine({ ...p, connected: 5, lost: 7, skipped: 1200, behindMs: 2500 }), 'simulate 12s, 3,840 records sent, 321/s (target 320/s), 5/6 Nodes connected, 7 lost, 1,200 skipped, 2.5s behind');
});

test('the summary: a line, then a row per Node and the total; shortfalls say what did not arrive', () => {
  const r = report([node('node-0'), node('node-1', { sourceAddress: null })]);
  const text = summaryText(r);
  assert.match(text, /^sent 20 records in 10\.0s \(2\/s, target 320\/s\) over tcp to 127\.0\.0\.1:4739 from 2 Nodes, 1,000 concurrent flows; 0 lost, 3 skipped \(0 late, 3 while a Node was not ready/);
  const lines = text.trimEnd().split('\n');
  assert.equal(lines.length, 5);
  assert.match(lines[1]!, /^NODE +SOURCE +DOMAIN +RECORDS +LOST +SKIPPED +CONNECTS +PACKETS +OCTETS +REVERSE PACKETS +REVERSE OCTETS$/);
  assert.match(lines[2]!, /^node-0 +127\.1\.0\.1 +7 +10 +0 +0 +1 +100 +1000 +50 +500$/);
  assert.match(lines[4]!, /^total +- +- +20 +0 +3 +2 +200 +2000 +100 +1000$/);
  assert.deepEqual(shortfalls(r), []);
  const bad = report([node('node-0', { connected: false, lastError: 'connect ECONNREFUSED 127.0.0.1:4739' }), node('node-1')], 4);
  assert.deepEqual(shortfalls(bad), ['4 records lost in transit', '1 of 2 Nodes not connected at the end (node-0: connect ECONNREFUSED 127.0.0.1:4739)']);
});
