// Fast fuzz variant for the suite (`npm run fuzz` runs ≥ 100k): mutated real messages through the ingest
// transcoders yield only FlowRecords that decode, and nothing but IpfixErrors is thrown. See fuzz.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzTarget } from '../../lib/ipfix/testing/fuzz.js';
import { transcoderTarget } from './testing/fuzz-target.js';

test('5,000 mutated fixture messages through transcodeMessage: every record Avro-decodes, only IpfixErrors thrown', () => {
  const report = fuzzTarget(transcoderTarget(), 5000, 20261201);
  assert.deepEqual(report.crashes.slice(0, 3), []);
  assert.ok(report.records > 1000, `${report.records} records transcoded and decoded`);
  assert.ok(report.ipfixErrors.FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH! > 0, 'corrupted sets are caught as layout mismatches');
  // A hang guard, not a speed assertion.
  assert.ok(report.slowestMs < 5000, `slowest message ${report.slowestMs.toFixed(1)} ms`);
});
