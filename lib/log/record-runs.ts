// Reading RecordRuns (types.ts): how many records a run holds, whether its bounds can be trusted, and the
// records as objects for the senders that need them (the Kafka backend's client, the worker-thread client).
import { FlowaggError } from '../errors.js';
import { LOG_INVALID_ARGUMENT } from './errors.js';
import type { ProduceRecord, RecordRun } from './types.js';

export function runsLength(runs: readonly RecordRun[]): number {
  let n = 0;
  for (const run of runs) n += run.bounds.length / 3;
  return n;
}

/** Throws LOG_INVALID_ARGUMENT unless each record's key and value lie in its buffer, in order. */
export function checkRuns(topic: string, runs: readonly RecordRun[]): void {
  const problem = runsProblem(runs);
  if (problem !== null) throw new FlowaggError(LOG_INVALID_ARGUMENT, `send to "${topic}": ${problem}`, { context: { topic } });
}

function runsProblem(runs: readonly RecordRun[]): string | null {
  if (!Array.isArray(runs)) return 'runs must be an array';
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    if (typeof run !== 'object' || run === null || !Buffer.isBuffer(run.buf) || !(run.bounds instanceof Int32Array)) return `run ${r} is not a buffer with Int32Array bounds`;
    const { buf, bounds } = run;
    if (bounds.length % 3 !== 0) return `run ${r} has ${bounds.length} bounds, not three per record`;
    for (let i = 0; i < bounds.length; i += 3) {
      if (!(bounds[i]! >= 0 && bounds[i]! <= bounds[i + 1]! && bounds[i + 1]! <= bounds[i + 2]! && bounds[i + 2]! <= buf.length)) {
        return `record ${i / 3} of run ${r} has bounds ${bounds[i]}, ${bounds[i + 1]}, ${bounds[i + 2]} outside its ${buf.length}-byte buffer`;
      }
    }
  }
  return null;
}

export function recordsOfRuns(runs: readonly RecordRun[]): ProduceRecord[] {
  const records: ProduceRecord[] = [];
  for (const { buf, bounds } of runs) {
    for (let i = 0; i < bounds.length; i += 3) records.push({ key: buf.subarray(bounds[i], bounds[i + 1]), value: buf.subarray(bounds[i + 1], bounds[i + 2]) });
  }
  return records;
}
