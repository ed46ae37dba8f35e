import { test } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import fc from 'fast-check';
import { MAX_LONG, writeLong } from './avro-binary.js';

test('longs are written as avsc writes them, up to ±MAX_LONG', () => {
  const longType = avro.Type.forSchema('long');
  const b = Buffer.alloc(10);
  const values = [0, 1, -1, 63, -64, 64, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 1_764_400_000_123, -1_700_000_000_000, 2 ** 40 + 12345, MAX_LONG, -MAX_LONG];
  fc.assert(fc.property(fc.integer({ min: -MAX_LONG, max: MAX_LONG }), (v) => {
    assert.deepEqual(b.subarray(0, writeLong(b, 0, v)), longType.toBuffer(v));
  }), { examples: values.map((v) => [v]), numRuns: 2000 });
});
