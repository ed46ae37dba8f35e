// Sequential reads from a file without loading it whole: captures can be larger than memory, while
// each unit read from them (a pcap record, a pcapng block, an IPFIX message) is small.
import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK = 1 << 20;

export class FileReader {
  readonly #fd: number;
  #buf = Buffer.alloc(CHUNK);
  /** Valid bytes are #buf[#start..#end); #fileOffset is the file position of #buf[#start]. */
  #start = 0;
  #end = 0;
  #fileOffset = 0;
  #eof = false;

  constructor(path: string) {
    this.#fd = openSync(path, 'r');
  }

  /** File offset of the next byte read() returns. */
  get offset(): number {
    return this.#fileOffset;
  }

  /**
   * The next n bytes (a view valid until the next call), or fewer at the end of the file.
   * n is bounded by the caller's formats (at most a few hundred KiB).
   */
  read(n: number): Buffer {
    const out = this.peek(n);
    this.#start += out.length;
    this.#fileOffset += out.length;
    return out;
  }

  /** Like read, without consuming. */
  peek(n: number): Buffer {
    this.#fill(n);
    return this.#buf.subarray(this.#start, this.#start + Math.min(n, this.#end - this.#start));
  }

  /** Skips n bytes; returns how many were skipped (fewer at the end of the file). */
  skip(n: number): number {
    let left = n;
    while (left > 0) {
      const chunk = this.read(Math.min(left, CHUNK));
      if (chunk.length === 0) break;
      left -= chunk.length;
    }
    return n - left;
  }

  #fill(n: number): void {
    if (this.#end - this.#start >= n || this.#eof) return;
    if (this.#buf.length - this.#start < n) {
      const bigger = Buffer.alloc(Math.max(CHUNK, n));
      this.#buf.copy(bigger, 0, this.#start, this.#end);
      this.#buf = bigger;
      this.#end -= this.#start;
      this.#start = 0;
    }
    while (this.#end - this.#start < n) {
      const got = readSync(this.#fd, this.#buf, this.#end, this.#buf.length - this.#end, null);
      if (got === 0) {
        this.#eof = true;
        return;
      }
      this.#end += got;
    }
  }

  close(): void {
    closeSync(this.#fd);
  }
}
