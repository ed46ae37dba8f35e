import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doubled } from './typed-arrays.js';

test('doubled keeps the type and values of the array, in twice its length, the rest zeros', () => {
  const ints = doubled(Int32Array.of(-1, 2, 3));
  assert.ok(ints instanceof Int32Array);
  assert.deepEqual([...ints], [-1, 2, 3, 0, 0, 0]);
  const floats = doubled(Float64Array.of(0.5));
  assert.ok(floats instanceof Float64Array);
  assert.deepEqual([...floats], [0.5, 0]);
});
