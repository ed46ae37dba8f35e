// The record encoder's caches: cached string encodings are exactly the variable-length encoding and
// are written without touching neighbouring bytes; both caches stay correct once they are full and
// when they start over; the encoder writes through a DataView of any Uint8Array (pooled Buffers
// with a byte offset included).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedString, ipv4Value, putEncodedString, viewOf } from './encoder-caches.js';
import { recordEncoder } from './record-encoder.js';
import { antreaAgentTemplate, antreaAgentValues, makeTemplate, templateField } from './testing/templates.js';

const varlen = (s: string): number[] => {
  const utf8 = [...new TextEncoder().encode(s)];
  return [utf8.length, ...utf8];
};

describe('encoder caches', () => {
  it('writes a cached string as its length prefix and UTF-8 bytes, and nothing else', () => {
    const samples = ['abc', 'abcd', 'abcde', 'abcdef', 'production', 'frontend-7d9f8c6b5-xxx1k', 'naïve', 'Grüße', '😀x', '\ud800ab', 'x'.repeat(64), 'ü'.repeat(64)];
    const backing = Buffer.alloc(400, 0xaa);
    const b = backing.subarray(3, 390); // an offset view, as a pooled Buffer is
    for (const s of samples) {
      const e = cachedString(s);
      assert.ok(e !== undefined, `${JSON.stringify(s)} is cached`);
      assert.equal(cachedString(s), e, 'a second lookup returns the same entry');
      b.fill(0xaa);
      const end = putEncodedString(viewOf(b), 5, e);
      const expected = varlen(s);
      assert.equal(end, 5 + expected.length);
      assert.deepEqual([...b.subarray(5, end)], expected, JSON.stringify(s));
      assert.ok(b.subarray(0, 5).every((x) => x === 0xaa) && b.subarray(end).every((x) => x === 0xaa), 'bytes around the value are untouched');
    }
    assert.ok(backing.subarray(0, 3).every((x) => x === 0xaa) && backing.subarray(390).every((x) => x === 0xaa));
  });

  it('leaves strings too short to fill a word or longer than 64 characters to the direct encoder', () => {
    assert.equal(cachedString('ab'), undefined);
    assert.equal(cachedString('y'.repeat(65)), undefined);
  });

  it('parses IPv4 text, refuses what is not, and stays right past its capacity', () => {
    assert.equal(ipv4Value('10.96.0.15'), 0x0a60000f);
    assert.equal(ipv4Value('255.255.255.255'), 0xffffffff);
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.x', ' 1.2.3.4']) assert.equal(ipv4Value(bad), -1, JSON.stringify(bad));
    // More distinct addresses than the cache holds, and enough misses for it to start over.
    for (let i = 0; i < 80_000; i++) {
      const n = (i * 2654435761) >>> 0;
      assert.equal(ipv4Value(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`), n);
    }
    assert.equal(ipv4Value('10.96.0.15'), 0x0a60000f);
  });

  it('encodes strings the same once the cache is full and after it starts over', () => {
    const t = makeTemplate(300, [templateField('sourcePodName'), templateField('sourceNodeName')], 1);
    const encode = recordEncoder(t);
    const b = new Uint8Array(200);
    for (let i = 0; i < 80_000; i++) {
      const pod = `pod-${i.toString(36)}-${'é'.repeat(i % 5)}`;
      const node = `node-${i % 50}`;
      const end = encode(b, 0, b.length, [pod, node]);
      assert.deepEqual([...b.subarray(0, end)], [...varlen(pod), ...varlen(node)], pod);
    }
  });

  it('gives the same record bytes in any Uint8Array, at any offset, and -1 when the record does not fit', () => {
    const t = antreaAgentTemplate();
    const encode = recordEncoder(t);
    const values = antreaAgentValues(17);
    const plain = new Uint8Array(600);
    const length = encode(plain, 0, plain.length, values);
    const pooled = Buffer.allocUnsafe(700).subarray(11);
    const end = encode(pooled, 7, pooled.length, values);
    assert.equal(end - 7, length);
    assert.deepEqual([...pooled.subarray(7, end)], [...plain.subarray(0, length)]);
    for (const cap of [length - 1, length - 20, 100]) {
      const before = Buffer.from(pooled);
      assert.equal(encode(pooled, 0, cap, values), -1);
      assert.deepEqual([...pooled.subarray(cap)], [...before.subarray(cap)], 'nothing written past cap');
    }
  });
});
