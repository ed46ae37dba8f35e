// Rebuilding an Aggregator from its changelog (changelog.ts): every record applied in order, then the
// partition's times put back. Pure; processor/restore.ts feeds it from the log.
import type { Aggregator } from './aggregator.js';
import { applyChangelogRecord } from './changelog.js';

export class StateRestore {
  /** The input offset committed with the state; null while no watermark record was read. */
  inputOffset: number | null = null;
  private watermark = 0;
  private received = 0;
  private nextSeq = 0;

  constructor(private readonly aggregator: Aggregator) {}

  apply(key: Buffer | null, value: Buffer | null): void {
    const applied = applyChangelogRecord(this.aggregator.store, key ?? Buffer.alloc(0), value);
    if (applied.kind === 'watermark') ({ watermark: this.watermark, received: this.received, nextSeq: this.nextSeq, inputOffset: this.inputOffset } = applied);
    else if (applied.kind === 'source') this.aggregator.clock.restoreSource(applied.id, applied.eventTime, applied.receivedAt);
    else if (applied.kind === 'sourceForgotten') this.aggregator.clock.restoreForgotten(applied.id);
  }

  /** Every record applied: the clock and the expiry queue back. */
  finish(): void {
    this.aggregator.restored(this.watermark, this.received, this.nextSeq);
  }
}
