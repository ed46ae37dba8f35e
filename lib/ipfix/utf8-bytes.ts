// A string value held as UTF-8 bytes in someone else's buffer, for an encoder to copy as they are: the IPFIX
// exporter's strings are already UTF-8 in the log's Avro values, and decoding each to a JS string only for
// the encoder to encode it again cost a fifth of the export (utf8Slice, then the string cache's lookup).
// The encoders take it wherever they take a string; no decoder makes one. One object serves record after
// record (its owner sets it again), so it is valid only until the record is encoded.
import { Buffer } from 'node:buffer';

const EMPTY = new Uint8Array(0);

export class Utf8Bytes {
  buf: Uint8Array = EMPTY;
  start = 0;
  length = 0;

  /** Points at buf[start, start + length); returns this. */
  set(buf: Uint8Array, start: number, length: number): this {
    this.buf = buf;
    this.start = start;
    this.length = length;
    return this;
  }

  /** The text, as Buffer#toString decodes it (malformed sequences become U+FFFD). */
  toString(): string {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + this.start, this.length).toString('utf8');
  }
}

/** A string value's text, whichever form it has. */
export const textOf = <T>(x: T | Utf8Bytes): T | string => (x instanceof Utf8Bytes ? x.toString() : x);
