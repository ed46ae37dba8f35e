import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordsOfRuns } from '../record-runs.js';
import type { RecordRun } from '../types.js';
import { packRuns, unpackRun } from './packing-runs.js';

const run = (buf: string, bounds: number[]): RecordRun => ({ buf: Buffer.from(buf), bounds: Int32Array.from(bounds) });
const texts = (runs: readonly RecordRun[]) => recordsOfRuns(runs).map((r) => `${r.key}=${r.value}`);

test('runs come back as one run of the same records in order: gaps between records dropped, empty keys and values kept', () => {
  const runs = [
    run('..k1v1..k2value2', [2, 4, 6, 8, 10, 16]),
    run('', []),
    run('xv', [0, 0, 2, 1, 1, 2]),
  ];
  const back = unpackRun(packRuns(runs));
  assert.deepEqual(texts([back]), ['k1=v1', 'k2=value2', '=xv', '=v']);
  assert.equal(back.buf.length, 4 + 8 + 2 + 1, 'only the records\' bytes');
  assert.ok(Buffer.isBuffer(back.buf));
});

test('the packed bytes are an ArrayBuffer of their own, never a slice of a shared one', () => {
  const packed = packRuns([run('kv', [0, 1, 2])]);
  assert.equal(packed.bytes.byteLength, 2);
  assert.equal(packed.bounds.buffer.byteLength, 12);
});
