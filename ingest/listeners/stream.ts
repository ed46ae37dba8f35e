// Reads IPFIX messages from one TCP or TLS connection, with backpressure: while the sink is throttled
// (the log fell behind) the socket is paused, so the kernel's receive window fills and the exporter's
// writes block, instead of this process buffering. At most one chunk plus one partial message is held
// per connection. A framing error or a message the sink rejects closes the connection (go-ipfix does
// the same on TCP: the exporter reconnects and resends its templates), and so does a connection that
// passes one of its time limits (deadlines.ts), checked by the owner calling checkDeadlines().
import type { Socket } from 'node:net';
import { errorMessage } from '../../lib/errors.js';
import { MessageFramer } from '../framing.js';
import { type DeadlineKind, StreamDeadlines, type StreamTimeouts } from './deadlines.js';

/** What handling a message came to: done, refused (the reason closes the connection), or done in part, with the rest to handle next. */
export type MessageOutcome =
  | { readonly kind: 'handled' }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'partly'; readonly rest: Buffer };

export interface StreamSink {
  /** Handles one message; a refusal closes the connection (malformed input). */
  message(message: Buffer): MessageOutcome;
  /** True while new input must wait. */
  readonly throttled: boolean;
  /** Calls back once when the sink stops being throttled. */
  whenDrained(callback: () => void): void;
  /** The connection ended: by the exporter, by an error, or because input was rejected. */
  closed(reason: StreamCloseReason): void;
}

export type StreamCloseReason =
  | { readonly kind: 'end' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'malformed'; readonly message: string }
  | { readonly kind: 'timeout'; readonly deadline: DeadlineKind; readonly message: string };

export interface StreamReader {
  /** True while the socket is paused by backpressure. */
  readonly paused: boolean;
  /** Bytes received and not yet handled. */
  readonly buffered: number;
  /** Closes the connection if it has passed a time limit (not while paused); returns whether it did. */
  checkDeadlines(now: number): boolean;
}

export interface StreamOptions {
  readonly timeouts?: StreamTimeouts;
  readonly now?: () => number;
  /** After this long handling one chunk's messages, the rest waits for the next turn of the event loop. */
  readonly sliceMs?: number;
}

const NO_TIMEOUTS: StreamTimeouts = { firstMessageMs: Infinity, partialMessageMs: Infinity, idleMs: 0 };

export function readStream(socket: Socket, sink: StreamSink, opts: StreamOptions = {}): StreamReader {
  const now = opts.now ?? Date.now;
  const framer = new MessageFramer();
  const deadlines = new StreamDeadlines(opts.timeouts ?? NO_TIMEOUTS, now());
  let paused = false;
  /** The exporter closed the connection: what it sent before is still handled, then the session ends. */
  let eof = false;
  let closedReason: StreamCloseReason | undefined;
  /** What is left of a message handled in part: handled before the next message. */
  let rest: Buffer | undefined;

  const close = (reason: StreamCloseReason) => {
    if (closedReason !== undefined) return;
    closedReason = reason;
    if (reason.kind === 'malformed' || reason.kind === 'timeout') socket.destroy();
    sink.closed(reason);
  };

  const sliceMs = opts.sliceMs ?? Infinity;
  let yielded = false;
  const process = () => {
    let messages = 0;
    const until = performance.now() + sliceMs;
    try {
      while (closedReason === undefined) {
        if (messages > 0 && performance.now() >= until) {
          // The rest of what arrived waits one turn, so that nothing else waits longer than a slice.
          if (!yielded) {
            yielded = true;
            if (!eof) socket.pause();
            setImmediate(() => {
              yielded = false;
              if (paused || closedReason !== undefined) return;
              process();
              if (!paused && !yielded && !eof) socket.resume();
            });
          }
          return;
        }
        if (sink.throttled) {
          if (!paused) {
            paused = true;
            if (!eof) socket.pause();
            sink.whenDrained(resume);
          }
          return;
        }
        const message = rest ?? framer.next();
        rest = undefined;
        if (message === undefined) {
          if (eof) close({ kind: 'end' });
          return;
        }
        messages++;
        const outcome = sink.message(message);
        if (outcome.kind === 'refused') {
          close({ kind: 'malformed', message: outcome.reason });
          return;
        }
        if (outcome.kind === 'partly') rest = outcome.rest;
      }
    } catch (err) {
      close({ kind: 'malformed', message: errorMessage(err) });
    } finally {
      deadlines.progressed(now(), messages, framer.buffered > 0 || rest !== undefined);
    }
  };

  const resume = () => {
    if (closedReason !== undefined) return;
    paused = false;
    deadlines.resumed(now());
    process();
    if (!paused && !yielded && !eof) socket.resume();
  };

  socket.on('data', (chunk: Buffer) => {
    deadlines.received(now());
    framer.push(chunk);
    if (!paused && !yielded) process();
  });
  socket.on('error', (err) => close({ kind: 'error', message: err.message }));
  socket.on('close', (hadError) => {
    if (hadError) return close({ kind: 'error', message: 'connection reset' });
    eof = true;
    if (!paused && !yielded) process();
  });

  return {
    get paused() {
      return paused;
    },
    get buffered() {
      return framer.buffered + (rest?.length ?? 0);
    },
    checkDeadlines(at) {
      if (paused || closedReason !== undefined) return false;
      const expired = deadlines.expired(at);
      if (expired === undefined) return false;
      close({ kind: 'timeout', deadline: expired.kind, message: expired.message });
      return true;
    },
  };
}
