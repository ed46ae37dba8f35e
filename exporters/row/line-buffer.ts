// Text lines of a batch, UTF-8 encoded into one growing buffer as they are made, each with the offset of
// the record it came from. The flow log and the S3 uploader write a batch's lines this way: a string that
// is encoded at once dies young, where 20,000 line strings kept until the write (each a tree of the
// pieces it was concatenated from) would be promoted and cost the old generation's collections. A writer
// that makes a buffer per batch can clear() it and use it again: growing a new one to a batch of JSON
// lines (30 MB) by doubling cost a tenth of the flow log's CPU in copies and collections.
export class LineBuffer {
  #buf = Buffer.allocUnsafe(1 << 16);
  #length = 0;
  readonly #ends: number[] = [];
  readonly #offsets: number[] = [];

  push(offset: number, text: string): void {
    const b = this.room(text.length * 3);
    this.end(offset, this.#length + b.write(text, this.#length, 'utf8'));
  }

  /** The buffer, with room for `bytes` more from `length`: for a writer that writes a line's bytes itself, then calls end(). */
  room(bytes: number): Buffer {
    if (this.#length + bytes > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#length + bytes));
      this.#buf.copy(next, 0, 0, this.#length);
      this.#buf = next;
    }
    return this.#buf;
  }

  /** Ends the line of the record at `offset`, written into room()'s buffer up to `end`. */
  end(offset: number, end: number): void {
    this.#length = end;
    this.#ends.push(end);
    this.#offsets.push(offset);
  }

  /** Bytes of the lines so far. */
  get length(): number {
    return this.#length;
  }

  get count(): number {
    return this.#ends.length;
  }

  offset(i: number): number {
    return this.#offsets[i]!;
  }

  /** Byte range of lines [from, to). */
  start(i: number): number {
    return i === 0 ? 0 : this.#ends[i - 1]!;
  }

  bytes(from: number, to: number): Buffer {
    return this.#buf.subarray(this.start(from), this.start(to));
  }

  /** Empties the buffer for the next batch, keeping its memory. */
  clear(): void {
    this.#length = 0;
    this.#ends.length = 0;
    this.#offsets.length = 0;
  }
}
