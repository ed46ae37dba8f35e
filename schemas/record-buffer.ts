// Where the transcoder writes: one large buffer that many records' keys and values are appended to, handed out
// as views (no copy per record). When it is full a new one is started; views into the old one stay valid for as
// long as someone holds them, so a batch being produced is never overwritten. A writer that knows when its
// records are no longer read (ingest's RunWriter) supplies the chunks itself, to reuse them.

const DEFAULT_CHUNK = 1 << 20;

const viewOf = (b: Buffer) => new DataView(b.buffer, b.byteOffset, b.byteLength);

export class RecordBuffer {
  buf: Buffer;
  /** A DataView of buf, for 4-byte copies. */
  view: DataView;
  pos = 0;
  /** The last record written: key = buf[keyStart, keyEnd), value = buf[keyEnd, valueEnd). */
  keyStart = 0;
  keyEnd = 0;
  valueEnd = 0;

  /** `nextChunk` gets the chunk that is full (undefined at first) and returns one of at least `size` bytes. */
  constructor(
    private readonly chunkSize = DEFAULT_CHUNK,
    private readonly nextChunk: (full: Buffer | undefined, size: number) => Buffer = (_, size) => Buffer.allocUnsafe(size),
  ) {
    this.buf = nextChunk(undefined, chunkSize);
    this.view = viewOf(this.buf);
  }

  /** Makes room for n more bytes at `pos`, starting a new chunk when needed. */
  reserve(n: number): void {
    if (this.pos + n > this.buf.length) {
      this.buf = this.nextChunk(this.buf, Math.max(this.chunkSize, n));
      this.view = viewOf(this.buf);
      this.pos = 0;
    }
  }

  /** Takes back what was written since `pos` of chunk `buf` (records never handed out). */
  rewind(buf: Buffer, pos: number): void {
    if (this.buf === buf) this.pos = pos;
  }

  /** Writes from the start of the current chunk again: only once no view handed out is in use any more. */
  reset(): void {
    this.pos = 0;
  }

  key(): Buffer {
    return this.buf.subarray(this.keyStart, this.keyEnd);
  }

  value(): Buffer {
    return this.buf.subarray(this.keyEnd, this.valueEnd);
  }
}
