// The flow log file: appends that are durable (written and fsync'ed) before they count, rotation by size
// into lumberjack-style backups (backups.ts), and exactly-once appends across crashes.
//
// Exactly once: beside the log, a small state file records, after every append, the log file's inode
// and size and, per partition of flows.processed, the next offset not yet in the log. An append is
// (1) write the lines and fsync, (2) replace the state file atomically. On open, a log longer than the
// recorded size holds lines of an append whose state was never recorded: they are cut off, and the
// runner delivers those records again. A record whose offset is below the recorded next offset is
// already in the log and is skipped. Rotation happens only between appends and is recorded too, so the
// file named `path` after a crash is either the recorded one or a new empty one.
import { type FileHandle, open, readFile, rename, stat, truncate } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDir, writeFileAtomic } from '../../lib/log/embedded/fs-util.js';
import type { Logger } from '../../lib/telemetry/logger.js';
import type { LineBuffer } from '../row/line-buffer.js';
import { type BackupPolicy, backupName, millBackups } from './backups.js';

interface State {
  inode: number;
  size: number;
  next: Record<string, number>;
}

export interface LogFileOptions extends BackupPolicy {
  readonly path: string;
  readonly maxBytes: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface AppendResult {
  /** Records of the batch already in the log (from before a crash), not written again. */
  readonly skipped: number;
  readonly bytes: number;
  readonly rotations: number;
}

export function statePath(path: string): string {
  return join(dirname(path), `.${basename(path)}.flowagg-state`);
}

export class LogFile {
  #fh: FileHandle;
  #state: State;
  #queue: Promise<unknown> = Promise.resolve();
  #mill: Promise<void> | undefined;
  readonly #opts: LogFileOptions;
  readonly #now: () => number;

  private constructor(opts: LogFileOptions, fh: FileHandle, state: State) {
    this.#opts = opts;
    this.#fh = fh;
    this.#state = state;
    this.#now = opts.now ?? Date.now;
  }

  static async open(opts: LogFileOptions): Promise<LogFile> {
    const recorded = await readState(opts.path);
    const fh = await open(opts.path, 'a');
    const st = await fh.stat();
    let size = st.size;
    if (recorded !== undefined && recorded.inode === st.ino && st.size > recorded.size) {
      opts.logger.warn({ path: opts.path, bytes: st.size - recorded.size }, 'cutting off lines written by an append that did not complete; their records are delivered again');
      await truncate(opts.path, recorded.size);
      await fh.sync();
      size = recorded.size;
    } else if (recorded !== undefined && recorded.inode === st.ino && st.size < recorded.size) {
      opts.logger.warn({ path: opts.path, size: st.size, recorded: recorded.size }, 'the flow log is shorter than recorded: was it truncated by something else?');
    }
    const state: State = { inode: st.ino, size, next: recorded?.next ?? {} };
    const file = new LogFile(opts, fh, state);
    file.#saveState();
    return file;
  }

  /** The next offset of `partitionKey` not yet in the log, if any was recorded. */
  nextOffset(partitionKey: string): number | undefined {
    return this.#state.next[partitionKey];
  }

  get size(): number {
    return this.#state.size;
  }

  /**
   * Appends the lines of the records of `partitionKey` up to `endOffset` (exclusive; filtered-out records
   * leave no line but count), skipping those already in the log. Appends are serialised.
   */
  append(partitionKey: string, lines: LineBuffer, endOffset: number): Promise<AppendResult> {
    const run = this.#queue.then(() => this.#append(partitionKey, lines, endOffset));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #append(key: string, lines: LineBuffer, endOffset: number): Promise<AppendResult> {
    const done = this.#state.next[key] ?? -1;
    if (endOffset <= done) return { skipped: lines.count, bytes: 0, rotations: 0 };
    // Lines are in offset order: those already in the log are a prefix.
    let first = 0;
    while (first < lines.count && lines.offset(first) < done) first++;
    let bytes = 0;
    let rotations = 0;
    let from = first;
    const flush = async (to: number, next: number) => {
      const data = lines.bytes(from, to);
      if (data.length > 0) await this.#write(data);
      bytes += data.length;
      from = to;
      this.#state.next[key] = next;
      this.#saveState();
    };
    for (let i = first; i < lines.count; i++) {
      const pending = lines.start(i + 1) - lines.start(from);
      if (this.#state.size + pending > this.#opts.maxBytes && this.#state.size + lines.start(i) - lines.start(from) > 0) {
        await flush(i, lines.offset(i));
        await this.#rotate();
        rotations++;
      }
    }
    await flush(lines.count, endOffset);
    return { skipped: first, bytes, rotations };
  }

  async #write(data: Buffer): Promise<void> {
    for (let at = 0; at < data.length; ) at += (await this.#fh.write(data, at)).bytesWritten;
    await this.#fh.datasync();
    this.#state.size += data.length;
  }

  async #rotate(): Promise<void> {
    await this.#fh.close();
    await rename(this.#opts.path, backupName(this.#opts.path, this.#uniqueNow()));
    this.#fh = await open(this.#opts.path, 'a');
    fsyncDir(dirname(this.#opts.path));
    this.#state.inode = (await this.#fh.stat()).ino;
    this.#state.size = 0;
    this.#saveState();
    this.#startMill();
  }

  #lastRotation = 0;
  /** Backup names carry milliseconds; two rotations in one millisecond must still get two names. */
  #uniqueNow(): number {
    this.#lastRotation = Math.max(this.#now(), this.#lastRotation + 1);
    return this.#lastRotation;
  }

  #saveState(): void {
    writeFileAtomic(statePath(this.#opts.path), Buffer.from(JSON.stringify(this.#state)));
  }

  #millAgain = false;
  /** One mill at a time; a rotation during a mill has it run once more afterwards. */
  #startMill(): void {
    if (this.#mill !== undefined) {
      this.#millAgain = true;
      return;
    }
    this.#mill = millBackups(this.#opts.path, this.#opts, this.#now())
      .then((removed) => {
        if (removed.length > 0) this.#opts.logger.info({ removed }, 'removed rotated flow logs');
      })
      .catch((err: unknown) => this.#opts.logger.error({ err }, 'compressing or removing rotated flow logs failed'))
      .finally(() => {
        this.#mill = undefined;
        if (this.#millAgain) {
          this.#millAgain = false;
          this.#startMill();
        }
      });
  }

  /** Waits for the appends and the compression in progress, then closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    while (this.#mill !== undefined) await this.#mill;
    await this.#fh.close();
  }
}

async function readState(path: string): Promise<State | undefined> {
  let text: string;
  try {
    text = await readFile(statePath(path), 'utf8');
  } catch {
    return undefined;
  }
  const s = JSON.parse(text) as State;
  // An inode that no longer names `path` means a rotation after the last append was recorded: the new
  // file holds nothing recorded yet.
  const st = await stat(path).catch(() => undefined);
  return st !== undefined && st.ino === s.inode ? s : { inode: -1, size: 0, next: s.next };
}
