import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokerHoldSeconds } from './accounting.js';

test('brokerHoldSeconds: an outage as long as it lasted, or to a kill that came before ingest caught up after it', () => {
  const down = [{ from: 13_100, to: 26_600 }];
  assert.equal(brokerHoldSeconds([], [5_000]), 0, 'no outage, nothing held for the broker');
  assert.equal(brokerHoldSeconds(down, []), 13.5, 'no kill: the outage');
  assert.equal(brokerHoldSeconds(down, [29_400]), 16.3, 'killed 2.8 s after the broker returned (CI of b6e77b7, seed 678072)');
  assert.equal(brokerHoldSeconds(down, [20_000]), 13.5, 'killed during the outage: the outage bounds it');
  assert.equal(brokerHoldSeconds(down, [40_000]), 13.5, 'killed long after: ingest had caught up');
  assert.equal(brokerHoldSeconds(down, [10_000]), 13.5, 'killed before the outage');
});
