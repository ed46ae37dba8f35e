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
  assert.equal(admission.openUnknown, 2);
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

test('a source that sends valid input frees its unreserved slot: more new exporters get in than the unreserved slots', () => {
  // A cluster's Agents all start unknown; each one trusted makes room for the next.
  const admission = new ConnectionAdmission({ maxConnections: 10, maxPerSource: 1, reservedForKnown: 7 });
  for (let i = 0; i < 3; i++) assert.equal(reasonOf(admission.admit(`agent-${i}`)), 'admitted');
  assert.equal(reasonOf(admission.admit('agent-3')), 'reserved');
  admission.trust('agent-0');
  admission.trust('agent-1');
  assert.equal(admission.openUnknown, 1);
  assert.equal(reasonOf(admission.admit('agent-3')), 'admitted');
  assert.equal(reasonOf(admission.admit('agent-4')), 'admitted');
  assert.equal(reasonOf(admission.admit('agent-5')), 'reserved');
  assert.equal(admission.open, 5);
});

test('an admission within another takes a slot of both, refuses by either, and trusts in both', () => {
  const shared = new ConnectionAdmission({ maxConnections: 3, maxPerSource: 3, reservedForKnown: 1 });
  const grpc = new ConnectionAdmission({ maxConnections: 10, maxPerSource: 1, reservedForKnown: 0, keys: { maxConnections: 'ingest.grpc.maxConnections', maxPerSource: 'ingest.grpc.maxConnectionsPerPeer' } }, shared);
  const tcp = shared.admit('a');
  const first = grpc.admit('b');
  assert.ok(first.admitted);
  const second = grpc.admit('b');
  assert.ok(!second.admitted && second.reason === 'per_source' && second.message.includes('ingest.grpc.maxConnectionsPerPeer'));
  assert.equal(reasonOf(grpc.admit('c')), 'reserved', 'the shared budget keeps its reserved slot');
  assert.equal(shared.open, 2);
  grpc.trust('c');
  assert.ok(shared.isKnown('c'));
  assert.equal(reasonOf(grpc.admit('c')), 'admitted');
  assert.equal(reasonOf(grpc.admit('d')), 'max_connections');
  assert.equal(grpc.open, 2, 'a refusal by the shared budget takes no slot of the inner one');
  first.release();
  assert.equal(shared.open, 2);
  assert.ok(tcp.admitted);
});
