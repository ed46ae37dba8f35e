// Fast fuzz variant for the suite (~5k mutations; `npm run fuzz` runs ≥ 100k): corrupted real messages
// never throw anything but IpfixError and never take long. See testing/fuzz.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fuzz } from './testing/fuzz.js';

describe('decoder fuzzing', () => {
  it('5,000 mutated fixture messages: only IpfixErrors, no slow decode', () => {
    const report = fuzz(5000, 20261129);
    assert.deepEqual(report.crashes.slice(0, 3), []);
    assert.equal(report.iterations, 5000);
    assert.ok(report.decoded > 1000, 'many corrupted messages still decode (the mutations are not all fatal)');
    assert.ok(Object.keys(report.ipfixErrors).length >= 5, `a variety of typed errors: ${Object.keys(report.ipfixErrors).join(', ')}`);
    // A hang guard, not a speed assertion: one message must never take seconds.
    assert.ok(report.slowestMs < 5000, `slowest decode ${report.slowestMs.toFixed(1)} ms`);
  });
});
