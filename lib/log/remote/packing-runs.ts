// Runs (types.ts RecordRun) across a thread boundary: a worker's ingest writes its records into chunks it
// reuses, so they cannot be moved; each record's bytes are copied once, back to back, into one buffer
// that is moved with its bounds. Turning them into records first (one object and two views each) cost as
// much again.
import type { RecordRun } from '../types.js';

export interface PackedRun {
  readonly bytes: ArrayBuffer;
  readonly bounds: Int32Array;
}

export function packRuns(runs: readonly RecordRun[]): PackedRun {
  let size = 0;
  let records = 0;
  for (const { bounds } of runs) {
    records += bounds.length / 3;
    for (let i = 0; i < bounds.length; i += 3) size += bounds[i + 2]! - bounds[i]!;
  }
  // Its own ArrayBuffer, never a slice of Buffer's shared pool: what is moved is the whole ArrayBuffer.
  const bytes = new ArrayBuffer(size);
  const into = Buffer.from(bytes);
  const packed = new Int32Array(records * 3);
  let at = 0;
  let n = 0;
  for (const { buf, bounds } of runs) {
    for (let i = 0; i < bounds.length; i += 3, n += 3) {
      const start = bounds[i]!;
      packed[n] = at;
      packed[n + 1] = at + bounds[i + 1]! - start;
      at += buf.copy(into, at, start, bounds[i + 2]!);
      packed[n + 2] = at;
    }
  }
  return { bytes, bounds: packed };
}

export const unpackRun = (p: PackedRun): RecordRun => ({ buf: Buffer.from(p.bytes), bounds: p.bounds });

export const transferOfRun = (p: PackedRun): ArrayBuffer[] => [p.bytes, p.bounds.buffer as ArrayBuffer];
