// Splits a TCP/TLS byte stream into IPFIX messages by the length in each message header (RFC 7011 §10.4.1):
//
//   0                   1                   2                   3
//   |       Version = 0x000a        |        Length (bytes)         |  ...
//
// Only what is needed to find message boundaries is checked here: the version, and a length that can
// hold a header. Everything else is the decoder's business. A bad header means the stream lost its
// framing for good, so the session must close (the exporter reconnects and resends its templates).
// Buffering is bounded: at most one incomplete message plus the chunk that is being split.
import { FlowaggError } from '../lib/errors.js';
import { INGEST_FRAMING } from './errors.js';

const IPFIX_VERSION = 10;
const HEADER_BYTES = 16;

export class MessageFramer {
  readonly #chunks: Buffer[] = [];
  /** Read position in #chunks[0]. */
  #offset = 0;
  #buffered = 0;
  #consumed = 0;

  /** Bytes received and not yet returned as messages. */
  get buffered(): number {
    return this.#buffered;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
  }

  /** The next complete message, or undefined until more bytes arrive. Throws INGEST_FRAMING on a bad header. */
  next(): Buffer | undefined {
    if (this.#buffered < 4) return undefined;
    const version = (this.#byteAt(0) << 8) | this.#byteAt(1);
    const length = (this.#byteAt(2) << 8) | this.#byteAt(3);
    if (version !== IPFIX_VERSION || length < HEADER_BYTES) {
      throw new FlowaggError(
        INGEST_FRAMING,
        version !== IPFIX_VERSION
          ? `stream is not IPFIX: version ${version} at stream offset ${this.#consumed} (expected ${IPFIX_VERSION})`
          : `IPFIX message length ${length} at stream offset ${this.#consumed} is shorter than its ${HEADER_BYTES}-byte header`,
        { context: { offset: this.#consumed, version, length } },
      );
    }
    if (this.#buffered < length) return undefined;
    return this.#take(length);
  }

  #byteAt(index: number): number {
    let i = index + this.#offset;
    for (const chunk of this.#chunks) {
      if (i < chunk.length) return chunk[i]!;
      i -= chunk.length;
    }
    return 0;
  }

  #take(length: number): Buffer {
    this.#buffered -= length;
    this.#consumed += length;
    const first = this.#chunks[0]!;
    if (first.length - this.#offset >= length) {
      // The common case: the message lies within one chunk, so no copy.
      const message = first.subarray(this.#offset, this.#offset + length);
      this.#offset += length;
      if (this.#offset === first.length) this.#dropFirst();
      return message;
    }
    const message = Buffer.allocUnsafe(length);
    let written = 0;
    while (written < length) {
      const chunk = this.#chunks[0]!;
      const n = Math.min(length - written, chunk.length - this.#offset);
      chunk.copy(message, written, this.#offset, this.#offset + n);
      written += n;
      this.#offset += n;
      if (this.#offset === chunk.length) this.#dropFirst();
    }
    return message;
  }

  #dropFirst(): void {
    this.#chunks.shift();
    this.#offset = 0;
  }
}
