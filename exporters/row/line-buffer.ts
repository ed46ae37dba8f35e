// Text lines of a batch, UTF-8 encoded into one growing buffer as they are made, each with the offset of
// the record it came from. The flow log and the S3 uploader write a batch's lines this way: a string that
// is encoded at once dies young, where 20,000 line strings kept until the write (each a tree of the
// pieces it was concatenated from) would be promoted and cost the old generation's collections.
export class LineBuffer {
  #buf = Buffer.allocUnsafe(1 << 16);
  #length = 0;
  readonly #ends: number[] = [];
  readonly #offsets: number[] = [];

  push(offset: number, text: string): void {
    if (this.#length + text.length * 3 > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#length + text.length * 3));
      this.#buf.copy(next, 0, 0, this.#length);
      this.#buf = next;
    }
    this.#length += this.#buf.write(text, this.#length, 'utf8');
    this.#ends.push(this.#length);
    this.#offsets.push(offset);
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
}
