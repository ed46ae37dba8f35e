// Rebuilding an Aggregator from its changelog (changelog.ts): every record applied in order, then the
// partition's times put back. Pure; processor/restore.ts feeds it from the log.
import type { Aggregator } from './aggregator.js';
import { applyChangelogRecord, type Checkpoint, type Progress } from './changelog.js';

const NO_CHECKPOINT: Checkpoint = { watermark: 0, received: 0, nextSeq: 0, inputOffset: 0, outputs: 0 };

export class StateRestore {
  /** The state's checkpoint; null while no watermark record was read. */
  checkpoint: Checkpoint | null = null;
  /** What the last commit committed; null for a state written before progress records. */
  progress: Progress | null = null;

  constructor(private readonly aggregator: Aggregator) {}

  /** The input offset committed with the state: the last commit's, or, before progress records, the checkpoint's; null for no state. */
  get inputOffset(): number | null {
    return this.progress?.inputOffset ?? this.checkpoint?.inputOffset ?? null;
  }

  apply(key: Buffer | null, value: Buffer | null): void {
    const applied = applyChangelogRecord(this.aggregator.store, key ?? Buffer.alloc(0), value);
    if (applied.kind === 'watermark') this.checkpoint = applied;
    else if (applied.kind === 'progress') this.progress = applied;
    else if (applied.kind === 'source') this.aggregator.clock.restoreSource(applied.id, applied.eventTime, applied.receivedAt);
    else if (applied.kind === 'sourceForgotten') this.aggregator.clock.restoreForgotten(applied.id);
  }

  /** Every record applied: the clock, the expiry queue and the output count back. */
  finish(): void {
    const checkpoint = this.checkpoint ?? NO_CHECKPOINT;
    this.aggregator.restored(checkpoint, this.progress?.outputs ?? checkpoint.outputs);
  }
}
