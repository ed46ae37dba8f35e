import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quantile } from './quantile.js';

test('quantile: nearest rank, whatever the order; NaN for no values', () => {
  const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(quantile(values, 0.5), 5);
  assert.equal(quantile(values, 0.99), 10);
  assert.equal(quantile(values, 0.9), 9);
  assert.equal(quantile(values, 0), 1);
  assert.equal(quantile(new Float64Array([0.25]), 0.99), 0.25);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});
