import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReviewGate } from './review-gate.js';

const limits = { perSecond: 2, burst: 4, totalPerSecond: 6, maxInFlight: 3, maxSources: 100 };

test('one address spends its burst, then its rate; all addresses together the total', async () => {
  let now = 0;
  const gate = new ReviewGate({ ...limits, maxInFlight: 1000 }, () => now);
  const sent = (source: string) => gate.send(source, () => Promise.resolve(true)).kind === 'sent';
  assert.deepEqual([1, 2, 3, 4, 5].map(() => sent('attacker')), [true, true, true, true, false]);
  assert.equal(sent('other'), true);
  assert.equal(sent('other'), true);
  assert.equal(sent('third'), false, 'the total of 6 is spent');
  now = 1000;
  assert.deepEqual([1, 2, 3].map(() => sent('attacker')), [true, true, false], 'a second later, its rate of 2 again');
});

test('no more than maxInFlight reviews wait for Kubernetes at once', async () => {
  const gate = new ReviewGate({ ...limits, burst: 100, perSecond: 100, totalPerSecond: 100 });
  const answers: (() => void)[] = [];
  const hang = () => new Promise<void>((resolve) => answers.push(resolve));
  const first = [gate.send('a', hang), gate.send('b', hang), gate.send('c', hang)];
  assert.ok(first.every((g) => g.kind === 'sent'));
  const fourth = gate.send('d', hang);
  assert.equal(fourth.kind, 'refused');
  assert.match(fourth.kind === 'refused' ? fourth.message : '', /3 reviews are waiting for Kubernetes/);
  answers[0]!();
  await (first[0]!.kind === 'sent' && first[0]!.answer);
  assert.equal(gate.inFlight, 2);
  assert.equal(gate.send('d', hang).kind, 'sent');
});
