// Reads IPFIX messages from one TCP or TLS connection, with backpressure: while the sink is throttled
// (the log fell behind) the socket is paused, so the kernel's receive window fills and the exporter's
// writes block, instead of this process buffering. At most one chunk plus one partial message is held
// per connection. A framing error or a message the sink rejects closes the connection (go-ipfix does
// the same on TCP: the exporter reconnects and resends its templates).
import { type Socket } from 'node:net';
import { errorMessage } from '../../lib/errors.js';
import { MessageFramer } from '../framing.js';

export interface StreamSink {
  /** Handles one message; a returned reason closes the connection (malformed input). */
  message(message: Buffer): string | undefined;
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
  | { readonly kind: 'malformed'; readonly message: string };

export interface StreamReader {
  /** True while the socket is paused by backpressure. */
  readonly paused: boolean;
  /** Bytes received and not yet handled. */
  readonly buffered: number;
}

export function readStream(socket: Socket, sink: StreamSink): StreamReader {
  const framer = new MessageFramer();
  let paused = false;
  /** The exporter closed the connection: what it sent before is still handled, then the session ends. */
  let eof = false;
  let closedReason: StreamCloseReason | undefined;

  const close = (reason: StreamCloseReason) => {
    if (closedReason !== undefined) return;
    closedReason = reason;
    if (reason.kind === 'malformed') socket.destroy();
    sink.closed(reason);
  };

  const process = () => {
    try {
      while (closedReason === undefined) {
        if (sink.throttled) {
          if (!paused) {
            paused = true;
            if (!eof) socket.pause();
            sink.whenDrained(resume);
          }
          return;
        }
        const message = framer.next();
        if (message === undefined) {
          if (eof) close({ kind: 'end' });
          return;
        }
        const rejected = sink.message(message);
        if (rejected !== undefined) {
          close({ kind: 'malformed', message: rejected });
          return;
        }
      }
    } catch (err) {
      close({ kind: 'malformed', message: errorMessage(err) });
    }
  };

  const resume = () => {
    if (closedReason !== undefined) return;
    paused = false;
    process();
    if (!paused && !eof) socket.resume();
  };

  socket.on('data', (chunk: Buffer) => {
    framer.push(chunk);
    if (!paused) process();
  });
  socket.on('error', (err) => close({ kind: 'error', message: err.message }));
  socket.on('close', (hadError) => {
    if (hadError) return close({ kind: 'error', message: 'connection reset' });
    eof = true;
    if (!paused) process();
  });

  return {
    get paused() {
      return paused;
    },
    get buffered() {
      return framer.buffered;
    },
  };
}
