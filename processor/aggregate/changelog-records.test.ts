import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { ChangelogRecords } from './changelog-records.js';

/** Writes `bytes` at the buffer's position (a new chunk when they do not fit); returns where they start. */
function write(b: RecordBuffer, bytes: Buffer): number {
  b.reserve(bytes.length);
  const start = b.pos;
  bytes.copy(b.buf, start);
  b.pos += bytes.length;
  return start;
}

test('records keep their bytes and order across chunks of the buffer, tombstones and records of their own buffers, sent in slices', () => {
  const b = new RecordBuffer(64);
  const records = new ChangelogRecords(3);
  const expected: [string, string | null][] = [];
  records.push(Buffer.from('gone'), null);
  expected.push(['gone', null]);
  for (let i = 0; i < 40; i++) {
    const key = Buffer.from(`key-${i}`);
    const value = Buffer.from(`value-${i}-`.repeat(1 + (i % 5)));
    const keyStart = write(b, key);
    // The value may start a new chunk: the key stays in the one it was written to.
    const keyChunk = b.buf;
    const keyEnd = b.pos;
    const valueStart = write(b, value);
    records.pushRange(keyChunk, keyStart, keyEnd, b.buf, valueStart, b.pos);
    expected.push([key.toString(), value.toString()]);
    if (i % 13 === 0) {
      records.push(Buffer.from(`own-${i}`), Buffer.from(`own value ${i}`));
      expected.push([`own-${i}`, `own value ${i}`]);
    }
  }
  assert.equal(records.length, expected.length);
  const slices = [...records.slices(7)];
  assert.deepEqual(slices.map((s) => s.length), [7, 7, 7, 7, 7, 7, 3]);
  const sent = slices.flat();
  assert.deepEqual(sent.map((r) => [r.key!.toString(), r.value === null ? null : r.value.toString()]), expected);
  assert.ok(sent.every((r) => r.partition === 3));
});
