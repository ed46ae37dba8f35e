import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateBudget } from './rate-budget.js';

test('each key spends its burst, then its rate; a greedy key cannot spend another\'s', () => {
  let now = 0;
  const budget = new RateBudget({ perSecond: 10, burst: 20, totalPerSecond: 1000 }, () => now);
  assert.equal(budget.take('attacker', 1000), 20);
  assert.equal(budget.take('attacker', 1000), 0);
  assert.equal(budget.take('good', 2), 2);
  now = 500;
  assert.equal(budget.take('attacker', 1000), 5);
});

test('all keys together stay within the total rate', () => {
  let now = 0;
  const budget = new RateBudget({ perSecond: 100, burst: 100, totalPerSecond: 150 }, () => now);
  let n = 0;
  for (let i = 0; i < 10; i++) n += budget.take(`k${i}`, 100);
  assert.equal(n, 150);
  now = 1000;
  assert.equal(budget.take('k0', 1000), 100);
});
