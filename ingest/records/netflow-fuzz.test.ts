// Fast fuzz variant for the suite (`npm run fuzz` runs ≥ 100k): mutated NetFlow v9 and v5 packets through
// transcodeMessage yield only FlowRecords that decode, and nothing but IpfixErrors is thrown. See fuzz-target.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzTarget } from '../../lib/ipfix/testing/fuzz.js';
import { netflowTranscoderTarget } from './testing/fuzz-target.js';

test('5,000 mutated NetFlow packets through transcodeMessage: every record Avro-decodes, only IpfixErrors thrown', () => {
  const report = fuzzTarget(netflowTranscoderTarget(), 5000, 20261203);
  assert.deepEqual(report.crashes.slice(0, 3), []);
  assert.ok(report.records > 5000, `${report.records} records transcoded and decoded`);
  assert.ok(report.ipfixErrors.FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH! > 0, 'corrupted FlowSets are caught as layout mismatches');
  // A hang guard, not a speed assertion.
  assert.ok(report.slowestMs < 5000, `slowest packet ${report.slowestMs.toFixed(1)} ms`);
});
