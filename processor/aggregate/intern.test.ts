import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EMPTY_ID, StringPool, type TextEncoding } from './intern.js';

/** A value's bytes in `encoding`, at `offset` inside a larger buffer as a record holds it. */
function inRecord(text: string, encoding: TextEncoding, offset: number): { b: Buffer; start: number; length: number } {
  const bytes = Buffer.from(text, encoding);
  const b = Buffer.alloc(offset + bytes.length + 3, 0x41);
  bytes.copy(b, offset);
  return { b, start: offset, length: bytes.length };
}

// Few characters, some outside ASCII, so that texts repeat, and the same bytes are different texts in the
// two encodings ("é" in UTF-8 is the latin1 text "Ã©").
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', 'Ã', '©', '\u00a0'), maxLength: 4 });
const op = fc.oneof(
  fc.record({ kind: fc.constant('string' as const), text }),
  fc.record({ kind: fc.constant('bytes' as const), text, encoding: fc.constantFrom<TextEncoding>('utf8', 'latin1'), offset: fc.nat(5) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
);

test('ids acquired from bytes and from strings agree with a model of the pool, through a cache small enough to collide', () => {
  fc.assert(
    fc.property(fc.constantFrom(1, 2, 4), fc.array(op, { maxLength: 200 }), (cacheEntries, ops) => {
      const pool = new StringPool(cacheEntries);
      const held: { id: number; text: string }[] = [];
      const idOf = new Map<string, number>();
      for (const o of ops) {
        if (o.kind === 'release') {
          if (held.length === 0) continue;
          const [{ id, text: t }] = held.splice(o.pick % held.length, 1) as [{ id: number; text: string }];
          pool.release(id);
          if (!held.some((h) => h.text === t)) idOf.delete(t);
          continue;
        }
        let id: number;
        if (o.kind === 'string') id = pool.acquire(o.text);
        else {
          const { b, start, length } = inRecord(o.text, o.encoding, o.offset);
          id = pool.acquireBytes(o.encoding, b, start, length);
        }
        if (o.text === '') {
          assert.equal(id, EMPTY_ID);
          continue;
        }
        assert.equal(pool.text(id), o.text);
        const known = idOf.get(o.text);
        if (known !== undefined) assert.equal(id, known, `one id per text (${JSON.stringify(o.text)})`);
        idOf.set(o.text, id);
        held.push({ id, text: o.text });
      }
      assert.equal(pool.size, idOf.size);
    }),
    { numRuns: 300 },
  );
});

test('an id freed and given to another text is not taken for the bytes it had', () => {
  const pool = new StringPool(1);
  const first = inRecord('pod-a', 'utf8', 2);
  const id = pool.acquireBytes('utf8', first.b, first.start, first.length);
  pool.release(id);
  assert.equal(pool.acquire('pod-b'), id, 'the freed id is reused');
  const again = pool.acquireBytes('utf8', first.b, first.start, first.length);
  assert.notEqual(again, id);
  assert.equal(pool.text(again), 'pod-a');
  assert.equal(pool.text(id), 'pod-b');
});

test('holds compares a value with an id in its encoding', () => {
  const pool = new StringPool();
  const id = pool.acquire('é');
  const utf8 = inRecord('é', 'utf8', 1);
  const latin1 = inRecord('é', 'latin1', 1);
  assert.ok(pool.holds(id, 'utf8', utf8.b, utf8.start, utf8.length));
  assert.ok(pool.holds(id, 'latin1', latin1.b, latin1.start, latin1.length));
  assert.ok(!pool.holds(id, 'latin1', utf8.b, utf8.start, utf8.length));
  assert.ok(!pool.holds(id, 'utf8', latin1.b, latin1.start, latin1.length));
});
