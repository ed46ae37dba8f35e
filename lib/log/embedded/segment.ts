// One segment file of a partition: `<baseOffset, 20 digits>.log`, a run of record batches, with its
// sparse offset and time indexes. Opening a segment scans it (rebuilding the indexes); for the active
// segment the scan checks every CRC and cuts the torn tail a crash can leave.
import fs from 'node:fs';
import { basename, join } from 'node:path';
import { FlowaggError } from '../../errors.js';
import { LOG_CORRUPT } from '../errors.js';
import { type BatchHeader, BATCH_HEADER_SIZE, BATCH_LENGTH_OVERHEAD, batchIsValid, batchSizeAt, readBatchHeader } from '../record-batch.js';
import { ioError, readAt } from './fs-util.js';
import { truncatedBytes } from './metrics.js';
import { SparseIndex } from './sparse-index.js';

const SCAN_CHUNK = 1 << 20;
const HEADER_SCAN_CHUNK = 64 << 10;

/** `<topic>-<partition>` → topic. */
const topicOfPartitionDir = (dir: string): string => basename(dir).replace(/-\d+$/, '');

export const segmentFileName = (baseOffset: number): string => `${String(baseOffset).padStart(20, '0')}.log`;

export function segmentBaseOffsets(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{20}\.log$/.test(f))
    .map((f) => Number(f.slice(0, 20)))
    .sort((a, b) => a - b);
}

/** Called for every valid batch found by a scan, with the buffer holding it (only its header, for a data batch of a closed segment that was skipped by its length). */
export type BatchVisitor = (header: BatchHeader, buf: Buffer, pos: number) => void;

export class Segment {
  /** Bytes of complete batches in the file. */
  size = 0;
  /** The offset after the last batch (the base offset when empty). */
  nextOffset: number;
  /** -1 when empty. */
  maxTimestamp = -1;
  private readonly offsetIndex = new SparseIndex();
  private readonly timeIndex = new SparseIndex();
  private bytesSinceIndex = Infinity;
  private refs = 0;
  private retired = false;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    readonly fd: number,
    private readonly indexIntervalBytes: number,
  ) {
    this.nextOffset = baseOffset;
  }

  get path(): string {
    return join(this.dir, segmentFileName(this.baseOffset));
  }

  static create(dir: string, baseOffset: number, indexIntervalBytes: number): Segment {
    const path = join(dir, segmentFileName(baseOffset));
    try {
      return new Segment(dir, baseOffset, fs.openSync(path, 'w+'), indexIntervalBytes);
    } catch (err) {
      throw ioError('create segment', path, err);
    }
  }

  /**
   * Opens and scans a segment. With `recover`, a batch with a bad length or CRC ends the segment and the
   * file is truncated there (a torn tail); without, it is corruption of a closed segment and an error.
   */
  static async open(dir: string, baseOffset: number, indexIntervalBytes: number, recover: boolean, visit: BatchVisitor): Promise<Segment> {
    const path = join(dir, segmentFileName(baseOffset));
    const seg = new Segment(dir, baseOffset, fs.openSync(path, 'r+'), indexIntervalBytes);
    const fileSize = fs.fstatSync(seg.fd).size;
    const validEnd = await seg.scan(fileSize, recover, visit);
    if (validEnd < fileSize) {
      if (!recover) {
        fs.closeSync(seg.fd);
        throw new FlowaggError(LOG_CORRUPT, `embedded log: segment ${path} is corrupt at byte ${validEnd} of ${fileSize}`, {
          context: { path, position: validEnd },
        });
      }
      truncatedBytes.labels(topicOfPartitionDir(dir)).inc(fileSize - validEnd);
      fs.ftruncateSync(seg.fd, validEnd);
      fs.fdatasyncSync(seg.fd);
    }
    return seg;
  }

  /**
   * Walks the batches, returning where the valid ones end. Closed segments (no CRC check) are read in
   * small chunks and a batch that does not fit is skipped by its length, so that opening a large log
   * reads mostly headers; the active segment is read and checked in full.
   */
  private async scan(fileSize: number, checkCrc: boolean, visit: BatchVisitor): Promise<number> {
    let buf = Buffer.allocUnsafe(checkCrc ? SCAN_CHUNK : HEADER_SCAN_CHUNK);
    let chunkStart = 0;
    let chunkLength = 0;
    let pos = 0;
    for (;;) {
      const inChunk = pos - chunkStart;
      if (pos + BATCH_LENGTH_OVERHEAD > fileSize) return pos;
      if (inChunk + BATCH_LENGTH_OVERHEAD > chunkLength) {
        chunkStart = pos;
        chunkLength = await readAt(this.fd, buf, Math.min(buf.length, fileSize - pos), pos);
        continue;
      }
      const size = batchSizeAt(buf, inChunk);
      if (size < 0 || pos + size > fileSize) return pos;
      const skippable = !checkCrc && inChunk + BATCH_HEADER_SIZE <= chunkLength && !readBatchHeader(buf, inChunk).control;
      if (inChunk + size > chunkLength && !skippable) {
        if (size > buf.length) buf = Buffer.allocUnsafe(size);
        chunkStart = pos;
        chunkLength = await readAt(this.fd, buf, Math.min(buf.length, fileSize - pos), pos);
        continue;
      }
      if (checkCrc && !batchIsValid(buf, inChunk, size)) return pos;
      const header = readBatchHeader(buf, inChunk);
      if (header.baseOffset < this.nextOffset || header.lastOffset < header.baseOffset) return pos;
      visit(header, buf, inChunk);
      this.noteBatch(header.baseOffset, header.lastOffset, header.maxTimestamp, size);
      pos += size;
    }
  }

  /** Records a batch written at the current end of the file. */
  noteBatch(baseOffset: number, lastOffset: number, maxTimestamp: number, size: number): void {
    if (this.bytesSinceIndex >= this.indexIntervalBytes) {
      this.offsetIndex.add(baseOffset, this.size);
      this.timeIndex.add(Math.max(this.maxTimestamp, maxTimestamp), this.size);
      this.bytesSinceIndex = 0;
    }
    this.bytesSinceIndex += size;
    this.size += size;
    this.nextOffset = lastOffset + 1;
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Where a forward scan for `offset` starts. */
  positionFor(offset: number): number {
    return this.offsetIndex.floor(offset);
  }

  /** Where a forward scan for the first record with a timestamp >= `timestamp` starts. */
  positionForTime(timestamp: number): number {
    return this.timeIndex.floorBelow(timestamp);
  }

  /**
   * Reads up to `length` bytes at `position`, holding the file open across a concurrent retire; null once
   * the segment is retired (deleted by retention or replaced by compaction).
   */
  async read(position: number, length: number): Promise<Buffer | null> {
    if (this.retired) return null;
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.size - position)));
    this.refs++;
    try {
      const n = buf.length === 0 ? 0 : await readAt(this.fd, buf, buf.length, position);
      return n === buf.length ? buf : buf.subarray(0, n);
    } catch (err) {
      throw ioError('read segment', this.path, err);
    } finally {
      if (--this.refs === 0 && this.retired) fs.closeSync(this.fd);
    }
  }

  /**
   * Calls `visit` with each complete batch from `position` on, reading `chunkBytes` at a time, until it
   * returns false, `enough()` says so at the end of a chunk, or the segment ends. Resolves false when the
   * segment was retired meanwhile.
   */
  async forEachBatch(
    position: number,
    chunkBytes: number,
    visit: (header: BatchHeader, buf: Buffer, pos: number) => boolean,
    enough: () => boolean = () => false,
  ): Promise<boolean> {
    while (position < this.size) {
      let buf = await this.read(position, chunkBytes);
      if (buf === null) return false;
      let p = 0;
      while (p + BATCH_LENGTH_OVERHEAD <= buf.length) {
        const size = batchSizeAt(buf, p);
        if (p + size > buf.length) {
          if (p > 0) break;
          buf = await this.read(position, size);
          if (buf === null) return false;
          continue;
        }
        if (!visit(readBatchHeader(buf, p), buf, p)) return true;
        p += size;
      }
      if (p === 0 || enough()) return true;
      position += p;
    }
    return true;
  }

  /** Stops using the segment; its descriptor is closed once the reads in flight are done. */
  retire(): void {
    this.retired = true;
    if (this.refs === 0) fs.closeSync(this.fd);
  }
}
