import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AuditFinding, SequenceAudit } from './sequence-audit.js';

/** Messages of `records` records each, numbered as RFC 7011 says, with the records shuffled across "partitions". */
function feed(audit: SequenceAudit, messages: { sequence: number; records: number; at: number }[]): void {
  const all = messages.flatMap((m) => Array.from({ length: m.records }, () => m));
  // Records of neighbouring messages interleave, as partitions read at different paces deliver them.
  all.sort((a, b) => (a.sequence * 7919) % 101 - (b.sequence * 7919) % 101);
  for (const m of all) audit.add('10.0.0.1', '10.0.0.1|4739|udp', 1, m.sequence, m.at);
}

const sum = (f: AuditFinding[], k: 'lost' | 'late' | 'resets') => f.reduce((n, x) => n + x[k], 0);

test('records of one stream that reached flows.raw through two replicas, in any order, show no loss', () => {
  const audit = new SequenceAudit({ settleMs: 100 });
  feed(audit, Array.from({ length: 50 }, (_, i) => ({ sequence: i * 5, records: 5, at: 1000 + i })));
  assert.deepEqual(audit.settle(1000), [], 'nothing is judged before the watermark has passed');
  assert.deepEqual(audit.settle(5000), []);
});

test('messages missing from flows.raw are lost records, counted once', () => {
  const audit = new SequenceAudit({ settleMs: 100 });
  const messages = Array.from({ length: 50 }, (_, i) => ({ sequence: i * 5, records: 5, at: 1000 + i })).filter((m) => m.sequence !== 100 && m.sequence !== 105);
  feed(audit, messages);
  const findings = audit.settle(5000);
  assert.equal(sum(findings, 'lost'), 10);
  assert.equal(findings[0]!.exporter, '10.0.0.1');
  assert.deepEqual(audit.settle(6000), [], 'judged once');
});

test('a message judged late, after its successors, is counted late', () => {
  const audit = new SequenceAudit({ settleMs: 100 });
  feed(audit, [{ sequence: 0, records: 5, at: 0 }, { sequence: 10, records: 5, at: 1 }]);
  assert.equal(sum(audit.settle(1000), 'lost'), 5);
  feed(audit, [{ sequence: 5, records: 5, at: 2000 }, { sequence: 15, records: 5, at: 2001 }]);
  const f = audit.settle(3000);
  assert.equal(sum(f, 'late'), 5);
  assert.equal(sum(f, 'lost'), 0);
});

test('sequence numbers that wrap at 2^32 are ordered across the wrap', () => {
  const audit = new SequenceAudit({ settleMs: 10 });
  feed(audit, [{ sequence: 2 ** 32 - 10, records: 5, at: 0 }, { sequence: 2 ** 32 - 5, records: 5, at: 0 }, { sequence: 0, records: 5, at: 0 }]);
  assert.deepEqual(audit.settle(100), []);
});

test('streams and messages gathered are bounded', () => {
  const audit = new SequenceAudit({ settleMs: 1e9, maxStreams: 10, maxPending: 20 });
  for (let s = 0; s < 50; s++) audit.add('x', `x|${s}`, 1, 0, 0);
  assert.equal(audit.streams, 10);
  for (let i = 0; i < 30; i++) audit.add('y', 'y', 1, i * 2, 0);
  assert.ok(audit.streams <= 10);
});
