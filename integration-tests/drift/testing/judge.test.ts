import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Line, tupleKey } from '../../harness/flow-log.js';
import { allRight, judge } from './judge.js';
import type { FlowSent, HalfSent } from './sent-ledger.js';

const TUPLE = { sourceIPv4Address: '10.0.0.1', destinationIPv4Address: '10.0.16.2', protocolIdentifier: 6, sourceTransportPort: 1024, destinationTransportPort: 80 };
const KEY = tupleKey('10.0.0.1', '10.0.16.2', 6, 1024, 80);

function half(node: string, packets: number, names: Partial<Pick<HalfSent, 'sourcePodName' | 'destinationPodName'>>): HalfSent {
  return {
    node, tuple: KEY, sourcePodName: names.sourcePodName ?? '', destinationPodName: names.destinationPodName ?? '',
    sums: { records: 2, packetDeltaCount: packets, octetDeltaCount: packets * 100, reversePacketDeltaCount: 0, reverseOctetDeltaCount: 0 },
    lastTotals: { packetTotalCount: packets, octetTotalCount: packets * 100, reversePacketTotalCount: 0, reverseOctetTotalCount: 0 },
  };
}

/** An export of the flow: per side, the deltas of this export and the totals so far. */
function line(source: [number, number] | undefined, destination: [number, number] | undefined, names: [string, string]): Line {
  const side = (suffix: string, s: [number, number] | undefined) => ({
    [`packetDeltaCount${suffix}`]: s?.[0] ?? 0, [`octetDeltaCount${suffix}`]: (s?.[0] ?? 0) * 100,
    [`packetTotalCount${suffix}`]: s?.[1] ?? 0, [`octetTotalCount${suffix}`]: (s?.[1] ?? 0) * 100,
  });
  return { ...TUPLE, ...side('FromSourceNode', source), ...side('FromDestinationNode', destination), sourcePodName: names[0], destinationPodName: names[1] };
}

const POD_A = 'app-a';
const POD_B = 'app-b';
const interNode: FlowSent = { flow: 7, kind: 'interNode', reporters: 2, source: half('node-0', 10, { sourcePodName: POD_A }), destination: half('node-1', 10, { destinationPodName: POD_B }) };

test('the judge: a correlated flow whose exports add up to what each Node sent is right', () => {
  const v = judge([interNode], [line([6, 6], [6, 6], [POD_A, POD_B]), line([4, 10], [4, 10], [POD_A, POD_B])], 0);
  assert.deepEqual([v.total, v.right, v.wrong.length], [1, 1, 0]);
  assert.ok(allRight(v));
});

test('the judge: a half exported alone, a sum short, a last export without the totals, and a flow not exported are each wrong, and say why', () => {
  const alone = judge([interNode], [line([6, 6], undefined, [POD_A, '']), line([4, 10], [10, 10], [POD_A, POD_B])], 0);
  assert.deepEqual(alone.wrong[0]!.problems, ['Pod names (a half alone, or the flow in pieces)'], 'the sums add up, but the first export lacks the destination half');
  const short = judge([interNode], [line([6, 6], [6, 6], [POD_A, POD_B])], 0);
  assert.deepEqual(short.wrong[0]!.problems, ['delta sums', 'last totals']);
  assert.match(short.summary(), /^0 of 1 flows right; wrong: delta sums ×1, last totals ×1, kind interNode ×1\n {2}flow 7 \(interNode\)/);
  const lastTotals = judge([interNode], [line([6, 6], [6, 6], [POD_A, POD_B]), line([4, 10], [4, 6], [POD_A, POD_B])], 0);
  assert.deepEqual(lastTotals.wrong[0]!.problems, ['last totals']);
  const none = judge([interNode], [], 0);
  assert.equal(none.wrong[0]!.problems[0], 'no export');
});

test('the judge: a flow one Node reports fills both sides from it', () => {
  const intra: FlowSent = { flow: 3, kind: 'intraNode', reporters: 1, source: half('node-2', 10, { sourcePodName: POD_A, destinationPodName: POD_B }) };
  assert.ok(allRight(judge([intra], [line([10, 10], [10, 10], [POD_A, POD_B])], 0)));
  assert.ok(!allRight(judge([intra], [line([10, 10], undefined, [POD_A, POD_B])], 0)));
});

test('the judge: a half whose peer never sent is right alone, only when the processor counted it', () => {
  const lone: FlowSent = { flow: 9, kind: 'interNode', reporters: 2, source: half('node-0', 10, { sourcePodName: POD_A }) };
  const lines = [line([10, 10], undefined, [POD_A, ''])];
  const counted = judge([lone], lines, 1);
  assert.deepEqual([counted.right, counted.uncorrelatedExpected], [1, 1]);
  assert.ok(allRight(counted));
  const uncounted = judge([lone], lines, 0);
  assert.ok(!allRight(uncounted));
  assert.match(uncounted.summary(), /uncorrelated halves counted 0, expected 1/);
});
