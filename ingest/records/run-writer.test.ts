import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordsOfRuns } from '../../lib/log/record-runs.js';
import { RunChunks } from './run-chunks.js';
import { RunWriter } from './run-writer.js';

/** Writes one record as a transcoder does: key, then value, at out.pos. */
function write(w: RunWriter, key: string, value: string): void {
  const out = w.out;
  out.reserve(key.length + value.length);
  out.keyStart = out.pos;
  out.keyEnd = out.keyStart + out.buf.write(key, out.keyStart, 'latin1');
  out.valueEnd = out.keyEnd + out.buf.write(value, out.keyEnd, 'latin1');
  out.pos = out.valueEnd;
  w.added();
}

const texts = (runs: Parameters<typeof recordsOfRuns>[0]) => recordsOfRuns(runs).map((r) => `${r.key}=${r.value}`);

test('records across a chunk boundary come as one run per chunk, with their bytes', () => {
  const w = new RunWriter(undefined, 64);
  for (let i = 0; i < 10; i++) write(w, `key${i}`, `value-${i}`);
  const { runs, records, bytes } = w.take();
  assert.equal(records, 10);
  assert.equal(bytes, 10 * 11);
  assert.ok(runs.length >= 2, `${runs.length} runs`);
  assert.equal(new Set(runs.map((r) => r.buf)).size, runs.length, 'one run per chunk');
  assert.deepEqual(texts(runs), Array.from({ length: 10 }, (_, i) => `key${i}=value-${i}`));
  assert.deepEqual(w.take(), { runs: [], records: 0, bytes: 0 }, 'a take starts again');
});

test('a rewind forgets the records after the mark, also in a chunk started since', () => {
  const w = new RunWriter(undefined, 64);
  write(w, 'kept', 'one');
  const mark = w.records;
  for (let i = 0; i < 8; i++) write(w, `gone${i}`, 'xxxxxxxxxxxx');
  w.rewind(mark);
  write(w, 'kept', 'two');
  assert.deepEqual(texts(w.take().runs), ['kept=one', 'kept=two']);
});

test('a chunk is written again only once every run in it is released and the writer has moved on', () => {
  const chunks = new RunChunks();
  const w = new RunWriter(chunks, 1 << 20);
  write(w, 'a', 'first');
  const first = w.take();
  const chunk = first.runs[0]!.buf;
  // Fill the chunk: the writer moves to a new one, the first is still held by the run.
  for (let i = 0; w.out.buf === chunk; i++) write(w, `k${i}`, 'v'.repeat(4000));
  const second = w.take();
  assert.equal(chunks.held, 2);
  assert.notEqual(w.out.buf.buffer, chunk.buffer, 'not reused while a run holds it');
  chunks.release(first.runs);
  assert.equal(texts(first.runs)[0], 'a=first', 'its bytes are as written until then');
  chunks.release(second.runs.filter((r) => r.buf === chunk));
  assert.equal(chunks.held, 1, 'only the chunk being written is held');
  for (let i = 0; w.out.buf.buffer !== chunk.buffer && i < 1000; i++) write(w, `m${i}`, 'v'.repeat(4000));
  assert.equal(w.out.buf.buffer, chunk.buffer, 'the next chunk is the released one');
});

test('records not yet taken keep their chunk held across a switch', () => {
  const chunks = new RunChunks();
  const w = new RunWriter(chunks, 1 << 20);
  const start = w.out.buf;
  for (let i = 0; w.out.buf === start; i++) write(w, `k${i}`, 'v'.repeat(4000));
  assert.equal(chunks.held, 2, 'the full chunk is held for its records not taken');
  const { runs } = w.take();
  assert.equal(runs.length, 2);
  chunks.release(runs);
  assert.equal(chunks.held, 1);
});
