// The time limits of one stream connection, so that a connection slot cannot be held without sending IPFIX:
// the first complete message within `firstMessageMs` of the connection (after its TLS handshake), the rest of
// a message within `partialMessageMs` of its first byte, and some byte within `idleMs` (0: no idle limit).
// Pure: the reader reports what happened, and a periodic check asks which limit, if any, has passed. Time
// spent paused by backpressure is the collector's doing and does not count (the caller skips the check then).

export interface StreamTimeouts {
  readonly firstMessageMs: number;
  readonly partialMessageMs: number;
  readonly idleMs: number;
}

export type DeadlineKind = 'first_message' | 'partial_message' | 'idle';

export class StreamDeadlines {
  readonly #limits: StreamTimeouts;
  readonly #opened: number;
  #messages = 0;
  #lastByte: number;
  /** When the incomplete message now buffered began, or undefined when none is. */
  #partialSince: number | undefined;

  constructor(limits: StreamTimeouts, now: number) {
    this.#limits = limits;
    this.#opened = now;
    this.#lastByte = now;
  }

  /** Bytes arrived. */
  received(now: number): void {
    this.#lastByte = now;
  }

  /** After handling what arrived: how many complete messages were taken, and whether a partial one is left. */
  progressed(now: number, messages: number, partialLeft: boolean): void {
    this.#messages += messages;
    if (!partialLeft) this.#partialSince = undefined;
    else if (messages > 0 || this.#partialSince === undefined) this.#partialSince = now;
  }

  /** Resets the clocks after a pause, so that time spent paused does not count. */
  resumed(now: number): void {
    this.#lastByte = now;
    if (this.#partialSince !== undefined) this.#partialSince = now;
  }

  /** The limit that has passed, with a message for the log, or undefined. */
  expired(now: number): { kind: DeadlineKind; message: string } | undefined {
    const { firstMessageMs, partialMessageMs, idleMs } = this.#limits;
    if (this.#messages === 0 && now - this.#opened > firstMessageMs) {
      return { kind: 'first_message', message: `no complete IPFIX message within ${firstMessageMs} ms of connecting` };
    }
    if (this.#partialSince !== undefined && now - this.#partialSince > partialMessageMs) {
      return { kind: 'partial_message', message: `an IPFIX message begun ${now - this.#partialSince} ms ago is still incomplete (limit ${partialMessageMs} ms)` };
    }
    if (idleMs > 0 && now - this.#lastByte > idleMs) return { kind: 'idle', message: `nothing received for ${now - this.#lastByte} ms (limit ${idleMs} ms)` };
    return undefined;
  }
}
