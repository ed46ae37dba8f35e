import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isFlowaggError } from '../lib/errors.js';
import { MessageFramer } from './framing.js';

function message(length: number, fill: number): Buffer {
  const b = Buffer.alloc(length, fill);
  b.writeUInt16BE(10, 0);
  b.writeUInt16BE(length, 2);
  return b;
}

function drain(framer: MessageFramer): Buffer[] {
  const out: Buffer[] = [];
  for (let m = framer.next(); m !== undefined; m = framer.next()) out.push(m);
  return out;
}

test('messages are split out of a stream whatever the chunk boundaries', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 16, max: 3000 }), { minLength: 1, maxLength: 20 }),
      fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 40 }),
      (lengths, cuts) => {
        const messages = lengths.map((l, i) => message(l, i));
        const stream = Buffer.concat(messages);
        const framer = new MessageFramer();
        const got: Buffer[] = [];
        let pos = 0;
        for (let i = 0; pos < stream.length; i++) {
          const n = cuts[i % cuts.length]!;
          framer.push(stream.subarray(pos, pos + n));
          pos += n;
          got.push(...drain(framer));
        }
        assert.deepEqual(got, messages);
        assert.equal(framer.buffered, 0);
      },
    ),
  );
});

test('an incomplete message waits for more bytes', () => {
  const framer = new MessageFramer();
  const m = message(100, 7);
  framer.push(m.subarray(0, 3));
  assert.equal(framer.next(), undefined);
  framer.push(m.subarray(3, 99));
  assert.equal(framer.next(), undefined);
  assert.equal(framer.buffered, 99);
  framer.push(m.subarray(99));
  assert.deepEqual(framer.next(), m);
});

test('a wrong version or an impossible length is a framing error naming the stream offset', () => {
  const notIpfix = new MessageFramer();
  notIpfix.push(message(20, 1));
  notIpfix.push(Buffer.from('GET / HTTP/1.1\r\n'));
  assert.equal(notIpfix.next()?.length, 20);
  assert.throws(() => notIpfix.next(), (err: unknown) => {
    assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_INGEST_FRAMING'));
    assert.match(err.message, /version 18245 at stream offset 20/);
    return true;
  });
  const short = new MessageFramer();
  short.push(Buffer.from([0, 10, 0, 8]));
  assert.throws(() => short.next(), /length 8 .* shorter than its 16-byte header/);
});
