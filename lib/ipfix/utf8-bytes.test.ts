// Strings handed to the encoders as UTF-8 bytes already held (Utf8Bytes) go on the wire exactly as the
// same strings would, whatever their bytes: ASCII, other UTF-8, malformed sequences (as their decoded
// text, U+FFFD), 255 bytes or more (the 3-byte length form), in a fixed-length field; a record that does
// not fit is still -1; and the object can be pointed at record after record.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordEncoder } from './record-encoder.js';
import { makeTemplate, templateField } from './testing/templates.js';
import { Utf8Bytes } from './utf8-bytes.js';

const asBytes = (bytes: Buffer, pad = 3): Utf8Bytes => {
  const backing = Buffer.alloc(bytes.length + 2 * pad, 0x41);
  bytes.copy(backing, pad);
  return new Utf8Bytes().set(backing, pad, bytes.length);
};

describe('Utf8Bytes', () => {
  const variable = makeTemplate(300, [templateField('sourcePodName'), templateField('sourceNodeName')], 1);
  const fixed = makeTemplate(301, [templateField('sourcePodName', 12)], 1);

  it('encodes as the string it holds, for every kind of byte sequence and length', () => {
    const samples = [
      Buffer.from('frontend-7d9f8c6b5-xxx1k'), Buffer.from('x'), Buffer.from('naïve Grüße 😀'), Buffer.from([0x61, 0xff, 0x62, 0xc3]),
      Buffer.from('p'.repeat(254)), Buffer.from('p'.repeat(255)), Buffer.from('ü'.repeat(200)), Buffer.from('q'.repeat(3000)),
    ];
    const encode = recordEncoder(variable);
    const [a, b] = [new Uint8Array(8000), new Uint8Array(8000)];
    for (const bytes of samples) {
      const text = bytes.toString('utf8');
      const end = encode(a, 5, a.length, [asBytes(bytes), 'node-1']);
      assert.equal(encode(b, 5, b.length, [text, 'node-1']), end, JSON.stringify(text.slice(0, 20)));
      assert.deepEqual(a.subarray(5, end), b.subarray(5, end));
    }
  });

  it('fills a fixed-length field as the string does, and refuses one too long for it', () => {
    const encode = recordEncoder(fixed);
    const [a, b] = [new Uint8Array(64).fill(0xaa), new Uint8Array(64).fill(0xaa)];
    assert.equal(encode(a, 0, 64, [asBytes(Buffer.from('pod-é'))]), encode(b, 0, 64, ['pod-é']));
    assert.deepEqual(a, b);
    assert.throws(() => encode(a, 0, 64, [asBytes(Buffer.from('a-name-of-13c'))]), /not a valid string/);
  });

  it('returns -1 when the record does not fit, and serves one record after another', () => {
    const encode = recordEncoder(variable);
    const held = new Utf8Bytes();
    const log = Buffer.from('pod-a|pod-bb|pod-ccc');
    const out = new Uint8Array(64);
    const ends = [[0, 5], [6, 6], [13, 7]].map(([start, length]) => {
      const end = encode(out, 0, out.length, [held.set(log, start!, length!), ''] );
      return Buffer.from(out.subarray(1, 1 + out[0]!)).toString('utf8') + `@${end}`;
    });
    assert.deepEqual(ends, ['pod-a@7', 'pod-bb@8', 'pod-ccc@9']);
    assert.equal(encode(out, 0, 7, [held.set(log, 13, 7), '']), -1);
  });
});
