import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { KeyIndex, keyHash } from './key-index.js';

/** A model of the store around the index: slot → key string, '' when free. */
class Keys {
  readonly keys: string[] = [];
  readonly index: KeyIndex;
  constructor(capacity: number) {
    this.keys = new Array<string>(capacity).fill('');
    this.index = new KeyIndex(capacity, () => this.keys);
  }
  find(key: string): number {
    const b = Buffer.from(key, 'latin1');
    return this.index.find(b, b.length, keyHash(b, b.length));
  }
  add(slot: number, key: string): void {
    if (slot >= this.keys.length) {
      const capacity = this.keys.length * 2;
      this.keys.length = capacity;
      this.keys.fill('', capacity / 2);
      this.index.grow(capacity, [...this.keys.keys()].filter((s) => this.keys[s] !== ''));
    }
    this.keys[slot] = key;
    const b = Buffer.from(key, 'latin1');
    this.index.insert(slot, keyHash(b, b.length));
  }
  remove(slot: number): void {
    this.index.delete(slot);
    this.keys[slot] = '';
  }
}

test('the index finds every key added and none removed, through growth and deletions that shift entries back', () => {
  // Few distinct keys of a few bytes in a small table: probe sequences collide and wrap around.
  const key = fc.uint8Array({ minLength: 1, maxLength: 3, max: 7 }).map((a) => Buffer.from(a).toString('latin1'));
  const op = fc.oneof(fc.record({ add: key }), fc.record({ remove: fc.nat(40) }));
  fc.assert(fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
    const m = new Keys(4);
    const model = new Map<string, number>();
    const free: number[] = [];
    let used = 0;
    for (const o of ops) {
      if ('add' in o) {
        if (model.has(o.add)) continue;
        const slot = free.pop() ?? used++;
        m.add(slot, o.add);
        model.set(o.add, slot);
      } else {
        const victim = [...model.entries()][o.remove % Math.max(1, model.size)];
        if (victim === undefined) continue;
        m.remove(victim[1]);
        model.delete(victim[0]);
        free.push(victim[1]);
      }
      assert.equal(m.index.size, model.size);
    }
    for (const [k, slot] of model) assert.equal(m.find(k), slot, `key ${Buffer.from(k, 'latin1').toString('hex')}`);
    for (let a = 0; a < 8; a++) {
      const k = String.fromCharCode(a, a);
      if (!model.has(k)) assert.equal(m.find(k), -1);
    }
  }), { numRuns: 300 });
});

test('keys that differ only in their last byte or their length are told apart', () => {
  const m = new Keys(16);
  const keys = ['\u0004abcdefghijklm', '\u0004abcdefghijkln', '\u0004abcdefghijkl', '\u0006'];
  keys.forEach((k, slot) => m.add(slot, k));
  keys.forEach((k, slot) => assert.equal(m.find(k), slot));
  assert.equal(m.find('\u0004abcdefghijklo'), -1);
});
