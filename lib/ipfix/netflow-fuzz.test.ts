// Fast fuzz variant for the suite (`npm run fuzz` runs ≥ 100k): corrupted NetFlow v9 and v5 packets never make
// the decoder throw anything but IpfixError, nor take long. See testing/netflow-fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzTarget } from './testing/fuzz.js';
import { netflowDecoderTarget } from './testing/netflow-fuzz.js';

test('5,000 mutated NetFlow v9 and v5 packets: only IpfixErrors, no slow decode', () => {
  const report = fuzzTarget(netflowDecoderTarget(), 5000, 20261202);
  assert.deepEqual(report.crashes.slice(0, 3), []);
  assert.equal(report.iterations, 5000);
  assert.ok(report.records > 5000, `${report.records} records decoded from corrupted packets`);
  assert.ok(Object.keys(report.ipfixErrors).length >= 6, `a variety of typed errors: ${Object.keys(report.ipfixErrors).join(', ')}`);
  // A hang guard, not a speed assertion: one packet must never take seconds.
  assert.ok(report.slowestMs < 5000, `slowest decode ${report.slowestMs.toFixed(1)} ms`);
});
