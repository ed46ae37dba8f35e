import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ExpiryHeap } from './expiry-heap.js';

const op = fc.oneof(
  // Few deadlines, so that ties are common and the sequence has to break them. A flow's sequence is
  // unique (its creation's): the slot is its low bits.
  fc.record({ kind: fc.constant('set' as const), slot: fc.nat(15), deadline: fc.nat(5), seq: fc.nat(5) }),
  fc.record({ kind: fc.constant('remove' as const), slot: fc.nat(15) }),
  fc.record({ kind: fc.constant('pop' as const) }),
);

test('the heap gives the slots in order of deadline, then sequence, as a model of it does, through growth, moves and removals', () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 150 }), (ops) => {
      let capacity = 2;
      const heap = new ExpiryHeap(capacity);
      const model = new Map<number, { deadline: number; seq: number }>();
      const first = () => [...model].sort(([, a], [, b]) => a.deadline - b.deadline || a.seq - b.seq)[0];
      for (const o of ops) {
        if (o.kind === 'set') {
          while (o.slot >= capacity) heap.grow((capacity *= 2));
          const seq = o.seq * 16 + o.slot;
          heap.set(o.slot, o.deadline, seq);
          model.set(o.slot, { deadline: o.deadline, seq });
        } else if (o.kind === 'remove') {
          if (o.slot < capacity) heap.remove(o.slot);
          model.delete(o.slot);
        } else {
          const due = first();
          assert.equal(heap.peek(), due === undefined ? -1 : due[0]);
          if (due !== undefined) {
            heap.remove(due[0]);
            model.delete(due[0]);
          }
        }
        const due = first();
        assert.equal(heap.size, model.size);
        assert.equal(heap.peekDeadline(), due === undefined ? Infinity : due[1].deadline);
        for (let slot = 0; slot < capacity; slot++) assert.equal(heap.has(slot), model.has(slot));
      }
    }),
    { numRuns: 500 },
  );
});
