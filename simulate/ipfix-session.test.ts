import assert from 'node:assert/strict';
import { test } from 'node:test';
import { antreaWorkload } from './antrea/workload.js';
import { decodeMessage } from '../lib/ipfix/decode-message.js';
import { TemplateStore } from '../lib/ipfix/template-store.js';
import { AgentIpfixSession, type Encoded } from './ipfix-session.js';

test('an Agent session: both templates first, then messages whose counts and sequence numbers add up, in the Node\'s domain', () => {
  const w = antreaWorkload({ nodes: 3, flows: 400, seed: 2, ipv6Share: 0.3 });
  const node = w.nodes[1]!;
  const records = [...w.records()].filter((r) => r.node === node);
  const session = new AgentIpfixSession(node, 1400);
  const parts: Encoded[] = [session.templates(), ...[records.slice(0, 7), records.slice(7, 300), records.slice(300)].map((b) => session.records(b))];
  assert.deepEqual(parts[0]!.counts, [0]);
  const store = new TemplateStore({ transport: 'udp' });
  const values: unknown[][] = [];
  let sequence = 0;
  for (const { messages, counts } of parts) {
    for (const [i, bytes] of messages.entries()) {
      assert.ok(bytes.length <= 1400);
      const m = decodeMessage(bytes, store);
      assert.equal(m.header.observationDomainId, node.observationDomainId);
      assert.equal(m.header.sequenceNumber, sequence, 'the sequence number counts the data records before the message');
      assert.equal(m.records.length, counts[i]);
      sequence += m.records.length;
      values.push(...m.records.map((r) => r.values));
    }
  }
  assert.deepEqual(decodeMessage(parts[0]!.messages[0]!, store).templates.map((t) => t.id), [256, 257]);
  assert.equal(values.length, records.length);
  assert.deepEqual(values.map((v) => v[7]), records.map((r) => r.values[7]), 'octetTotalCount, record by record');
});

test('an Agent session on its own time: every message carries the export time of its records, counts still adding up', () => {
  const w = antreaWorkload({ nodes: 2, flows: 300, seed: 3 });
  const records = [...w.records()].filter((r) => r.node === w.nodes[0]);
  const session = new AgentIpfixSession(w.nodes[0]!, 1400, { agentTime: true });
  const store = new TemplateStore({ transport: 'udp' });
  decodeMessage(session.templates().messages[0]!, store);
  const { messages, counts } = session.records(records);
  let at = 0;
  for (const [i, bytes] of messages.entries()) {
    const m = decodeMessage(bytes, store);
    const carried = records.slice(at, (at += counts[i]!));
    assert.equal(m.records.length, carried.length);
    assert.deepEqual(new Set(carried.map((r) => r.exportTime)), new Set([m.header.exportTime]), `message ${i}: one export time, its records'`);
  }
  assert.equal(at, records.length);
  assert.ok(new Set(records.map((r) => r.exportTime)).size > 5, 'the records span several export times');
});
