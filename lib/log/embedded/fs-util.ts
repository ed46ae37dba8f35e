// The few file primitives the log needs, as promises over the callback API (lighter than FileHandle on
// the append path), plus the durable-rename dance for small metadata files.
import fs from 'node:fs';
import { dirname } from 'node:path';
import { FlowaggError } from '../../errors.js';
import { LOG_IO } from '../errors.js';

/** Linux caps one writev at IOV_MAX buffers. */
const IOV_MAX = 1024;

export function ioError(what: string, path: string, err: unknown): FlowaggError {
  return new FlowaggError(LOG_IO, `embedded log: cannot ${what} ${path}: ${(err as Error).message}`, { context: { path }, cause: err });
}

function writev(fd: number, buffers: Buffer[], position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.writev(fd, buffers, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/** Writes every buffer at `position`, in order, resuming after short writes. */
export async function writeAllAt(fd: number, buffers: readonly Buffer[], position: number): Promise<void> {
  let pending = buffers.slice();
  while (pending.length > 0) {
    const chunk = pending.slice(0, IOV_MAX);
    let written = await writev(fd, chunk, position);
    position += written;
    let i = 0;
    while (i < chunk.length && written >= chunk[i]!.length) written -= chunk[i++]!.length;
    pending = pending.slice(i);
    if (written > 0) pending[0] = pending[0]!.subarray(written);
  }
}

export function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

export function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** Makes a created, renamed or deleted entry of `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Replaces `path` with `data` so that a crash leaves either the old or the new content. */
export function writeFileAtomic(path: string, data: Buffer): void {
  const tmp = `${path}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
  fsyncDir(dirname(path));
}
