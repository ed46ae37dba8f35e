// Which transactions are open on a partition (the last stable offset stops at the first one; recovery
// resolves them) and which offset ranges were aborted (read_committed readers skip them). Fed by the scan
// of a partition on open and then by every append.
import { type BatchHeader, type ControlType, controlTypeOf } from '../record-batch.js';

interface AbortedRange {
  readonly producerId: number;
  readonly first: number;
  /** The offset of the abort marker. */
  readonly last: number;
}

export class TxnTracker {
  /** Producer id → first offset of its transaction open on this partition. */
  readonly open = new Map<number, number>();
  private aborted: AbortedRange[] = [];

  note(producerId: number, baseOffset: number, transactional: boolean, control: ControlType | undefined): void {
    if (control !== undefined) {
      const first = this.open.get(producerId);
      this.open.delete(producerId);
      if (control === 'abort' && first !== undefined) this.aborted.push({ producerId, first, last: baseOffset });
    } else if (transactional && !this.open.has(producerId)) {
      this.open.set(producerId, baseOffset);
    }
  }

  /** For Segment.open's scan. */
  visit(header: BatchHeader, buf: Buffer, pos: number): void {
    this.note(header.producerId, header.baseOffset, header.transactional, header.control ? controlTypeOf(buf, pos) : undefined);
  }

  get hasAborted(): boolean {
    return this.aborted.length > 0;
  }

  isAborted(producerId: number, offset: number): boolean {
    for (const a of this.aborted) if (a.producerId === producerId && a.first <= offset && offset <= a.last) return true;
    return false;
  }

  /** Forgets aborted ranges that retention removed from the log. */
  forgetBefore(offset: number): void {
    this.aborted = this.aborted.filter((a) => a.last >= offset);
  }
}
