// The clock of one input partition: the event time by which its flows expire. A partition holds the
// records of many sources (Agents: an exporter address and observation domain), whose streams drift
// apart: one is read faster, one sends a backlog after a reconnect, one's clock is seconds off. So the
// partition's time is not the latest record's but the slowest active source's, estimated from the log:
//
//   R          the receive clock: the latest receive time in the partition (records, and the clock ticks
//              ingest writes to every partition, so that it moves while no record comes)
//   off(s)     how far source s's event time is from receive time: its latest event time minus the receive
//              time of its latest record (positive while its records are read faster than they were made)
//   est(s)     R + off(s): where source s is now, assuming it goes on at the pace of the receive clock
//   now        max(now, R + min off(s) over the active sources), never further behind R than `maxLagMs`
//
// A source is active until it was silent for `idleMs` of receive time; with no active source, time goes on
// with the receive clock from where the sources last active left it. A source silent for
// `idleMs + maxLagMs` is forgotten. Pure: the same records in the same order give the same clock,
// whatever the batching and the restarts (its state goes to the changelog, changelog.ts).
export interface ClockSettings {
  /** A source silent this long (receive time) no longer holds the partition's time back. */
  readonly idleMs: number;
  /** No source holds the partition's time further than this behind the receive clock (the allowed lateness). */
  readonly maxLagMs: number;
  /** An export time further than this ahead of its receive time counts as the receive time plus this. */
  readonly maxAheadMs: number;
  /** Sources tracked at once; past it the longest silent one is forgotten. */
  readonly maxSources: number;
}

export interface SourceClock {
  readonly id: string;
  /** The latest event time of its records. */
  eventTime: number;
  /** The receive time of its latest record. */
  receivedAt: number;
  /** Changed since the changelog last took it. */
  dirty: boolean;
}

export class PartitionClock {
  /** Event time of the partition (ms): flows due by it expire. */
  now = 0;
  /** Receive clock (ms): the latest receive time of a record or tick of this partition. */
  received = 0;
  private readonly sources = new Map<string, SourceClock>();
  /** Forgotten since the changelog last took them. */
  private forgotten: string[] = [];
  private minOffset = Infinity;
  private minSource: SourceClock | undefined;
  /** Whether minOffset is over the active sources (else none was active, and it is the last one that was). */
  private minOfActive = true;
  /** Receive time at which the next active source falls silent, or a source is due to be forgotten. */
  private nextChangeAt = Infinity;

  constructor(private readonly settings: ClockSettings) {}

  get sourceCount(): number {
    return this.sources.size;
  }

  /** A record's event time: its export time, unless that is more than maxAheadMs ahead of its receive time. */
  eventTime(exportTime: number, receiveTime: number): number {
    const cap = receiveTime + this.settings.maxAheadMs;
    return receiveTime > 0 && exportTime > cap ? cap : exportTime;
  }

  /** Takes a record of `source` into the clock and returns its event time. Taking the same record twice changes nothing. */
  observe(source: string, exportTime: number, receiveTime: number): number {
    const t = this.eventTime(exportTime, receiveTime);
    let s = this.sources.get(source);
    if (s === undefined) {
      if (this.sources.size >= this.settings.maxSources) this.forgetLongestSilent();
      s = { id: source, eventTime: t, receivedAt: receiveTime, dirty: true };
      this.sources.set(source, s);
    } else if (t > s.eventTime || receiveTime > s.receivedAt) {
      s.eventTime = Math.max(s.eventTime, t);
      s.receivedAt = Math.max(s.receivedAt, receiveTime);
      s.dirty = true;
    }
    if (receiveTime > this.received) this.received = receiveTime;
    if (s.receivedAt + this.settings.idleMs + 1 < this.nextChangeAt) this.nextChangeAt = s.receivedAt + this.settings.idleMs + 1;
    const offset = s.eventTime - s.receivedAt;
    // A source back from silence, or the slowest one moving on, can raise the minimum: look at them all.
    if (!this.minOfActive || this.received >= this.nextChangeAt || (s === this.minSource && offset > this.minOffset)) this.recompute();
    else if (offset < this.minOffset) {
      this.minOffset = offset;
      this.minSource = s;
    }
    this.advance();
    return t;
  }

  /** A clock tick of ingest's (or any record's receive time): moves the receive clock. */
  tick(receiveTime: number): void {
    if (receiveTime <= this.received) return;
    this.received = receiveTime;
    if (this.received >= this.nextChangeAt) this.recompute();
    this.advance();
  }

  /** Whether the record's event time is further behind the partition's time than the allowed lateness. */
  isLate(eventTime: number): boolean {
    return eventTime < this.now - this.settings.maxLagMs;
  }

  private advance(): void {
    if (this.received === 0) return;
    const lag = this.minOffset === Infinity ? -this.settings.maxLagMs : Math.max(this.minOffset, -this.settings.maxLagMs);
    const candidate = this.received + lag;
    if (candidate > this.now) this.now = candidate;
  }

  /**
   * The minimum offset over the active sources, forgetting the long silent. With none active the last
   * minimum stays: time goes on at the receive clock's pace from where the sources last active were.
   */
  private recompute(): void {
    const { idleMs, maxLagMs } = this.settings;
    const r = this.received;
    let active = Infinity;
    let activeSource: SourceClock | undefined;
    let next = Infinity;
    for (const s of this.sources.values()) {
      const silence = r - s.receivedAt;
      if (silence > idleMs + maxLagMs) {
        this.forget(s);
        continue;
      }
      const offset = s.eventTime - s.receivedAt;
      if (silence <= idleMs) {
        if (offset < active) [active, activeSource] = [offset, s];
        next = Math.min(next, s.receivedAt + idleMs + 1);
      } else {
        next = Math.min(next, s.receivedAt + idleMs + maxLagMs + 1);
      }
    }
    this.minOfActive = activeSource !== undefined;
    if (this.minOfActive) [this.minOffset, this.minSource] = [active, activeSource];
    else this.minSource = undefined;
    this.nextChangeAt = next;
  }

  private forget(s: SourceClock): void {
    this.sources.delete(s.id);
    this.forgotten.push(s.id);
  }

  private forgetLongestSilent(): void {
    let oldest: SourceClock | undefined;
    for (const s of this.sources.values()) if (oldest === undefined || s.receivedAt < oldest.receivedAt) oldest = s;
    if (oldest !== undefined) this.forget(oldest);
    this.recompute();
  }

  /** The sources changed and forgotten since the last call, for the changelog. */
  takeChanges(): { changed: SourceClock[]; forgotten: string[] } {
    const changed: SourceClock[] = [];
    for (const s of this.sources.values()) {
      if (!s.dirty) continue;
      s.dirty = false;
      changed.push(s);
    }
    const forgotten = this.forgotten;
    this.forgotten = [];
    return { changed, forgotten };
  }

  /** Restore: a source as the changelog holds it. */
  restoreSource(id: string, eventTime: number, receivedAt: number): void {
    this.sources.set(id, { id, eventTime, receivedAt, dirty: false });
  }

  restoreForgotten(id: string): void {
    this.sources.delete(id);
  }

  /** Restore: the partition's times, once every source is back. */
  restored(now: number, received: number): void {
    this.now = now;
    this.received = received;
    this.forgotten = [];
    this.recompute();
  }

  /** Forgets everything (a replay starts from an empty state); the forgotten sources go to the changelog. */
  reset(): void {
    for (const s of [...this.sources.values()]) this.forget(s);
    this.now = 0;
    this.received = 0;
    this.minOffset = Infinity;
    this.minSource = undefined;
    this.minOfActive = true;
    this.nextChangeAt = Infinity;
  }
}
