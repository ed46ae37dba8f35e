import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Admission, ConnectionAdmission } from './admission.js';

const reasonOf = (a: Admission) => (a.admitted ? 'admitted' : a.reason);

test('connections are bounded per source and in total, and released slots are reused', () => {
  const admission = new ConnectionAdmission({ maxConnections: 3, maxPerSource: 2, reservedForKnown: 0 });
  const a1 = admission.admit('a');
  assert.equal(reasonOf(admission.admit('a')), 'admitted');
  assert.equal(reasonOf(admission.admit('a')), 'per_source');
  assert.equal(reasonOf(admission.admit('b')), 'admitted');
  assert.equal(reasonOf(admission.admit('c')), 'max_connections');
  assert.ok(a1.admitted);
  a1.release();
  a1.release();
  assert.equal(admission.open, 2, 'a second release is ignored');
  assert.equal(reasonOf(admission.admit('c')), 'admitted');
});

test('reserved slots go only to sources that have sent valid IPFIX before', () => {
  const admission = new ConnectionAdmission({ maxConnections: 4, maxPerSource: 4, reservedForKnown: 2 });
  admission.trust('exporter');
  assert.equal(reasonOf(admission.admit('attacker')), 'admitted');
  assert.equal(reasonOf(admission.admit('attacker')), 'admitted');
  const third = admission.admit('attacker');
  assert.equal(reasonOf(third), 'reserved');
  assert.ok(!third.admitted && /kept for exporters/.test(third.message));
  assert.equal(reasonOf(admission.admit('exporter')), 'admitted');
  assert.equal(reasonOf(admission.admit('exporter')), 'admitted');
  assert.equal(reasonOf(admission.admit('exporter')), 'max_connections');
});

test('the known set is bounded, forgetting the least recently trusted', () => {
  const admission = new ConnectionAdmission({ maxConnections: 1, maxPerSource: 1, reservedForKnown: 1, maxKnown: 2 });
  admission.trust('a');
  admission.trust('b');
  admission.trust('a');
  admission.trust('c');
  assert.deepEqual(['a', 'b', 'c'].map((x) => admission.isKnown(x)), [true, false, true]);
});
