import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORE_OVERRUN, constantStores, viewOf } from './constant-stores.js';
import { compileFunction } from './ipfix/codegen.js';
import { rng } from './ipfix/testing/fuzz.js';

type Put = (b: Buffer, p: number) => number;
const compile = (bytes: Uint8Array) => compileFunction<Put>('putConstant', ['b', 'p'], `const view = viewOf(b);\n${constantStores(bytes)}\nreturn p;`, { viewOf });

test('the stores write the constant bytes, every length and byte value, at any offset, and advance past them', () => {
  const rand = rng(18);
  for (let length = 0; length <= 40; length++) {
    const bytes = Buffer.from(Array.from({ length }, () => Math.floor(rand() * 256)));
    const put = compile(bytes);
    for (const at of [0, 1, 2, 3, 5, 7]) {
      const out = Buffer.alloc(at + length + STORE_OVERRUN, 0xee);
      assert.equal(put(out, at), at + length);
      assert.deepEqual(out.subarray(at, at + length), bytes, `length ${length} at ${at}`);
      assert.ok(out.subarray(0, at).every((c) => c === 0xee), 'nothing before the constant is touched');
    }
  }
});

test('viewOf follows the buffer written into, including one that is a slice of a larger one', () => {
  const put = compile(Buffer.from(',"key":'));
  const whole = Buffer.alloc(64);
  const slice = whole.subarray(16, 40);
  assert.equal(put(slice, 2), 9);
  assert.equal(whole.toString('latin1', 18, 25), ',"key":');
  const other = Buffer.alloc(16);
  put(other, 0);
  assert.equal(other.toString('latin1', 0, 7), ',"key":');
});
