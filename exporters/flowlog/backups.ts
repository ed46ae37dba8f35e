// Rotated flow-log files, named and kept as lumberjack (Antrea's rotation library) keeps them:
// `<name>-<UTC time 2006-01-02T15-04-05.000><ext>`, gzip'ed to `…<ext>.gz` when compression is on, at
// most maxBackups of them (0: no limit) and none older than maxAge days (0: no limit), newest kept.
// A compressed file replaces the plain one only once it is complete and on disk.
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { fsyncDir } from '../../lib/log/embedded/fs-util.js';

export interface BackupPolicy {
  readonly maxBackups: number;
  readonly maxAgeMs: number;
  readonly compress: boolean;
}

function parts(path: string) {
  const ext = extname(path);
  return { dir: dirname(path), prefix: basename(path, ext) + '-', ext };
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replaceAll(':', '-');
}

/** The name the current file gets when it is rotated at `ms`. */
export function backupName(path: string, ms: number): string {
  const { dir, prefix, ext } = parts(path);
  return join(dir, `${prefix}${stamp(ms)}${ext}`);
}

export interface Backup {
  readonly path: string;
  readonly time: number;
  readonly compressed: boolean;
}

/** The rotated files of `path`, newest first. */
export async function listBackups(path: string): Promise<Backup[]> {
  const { dir, prefix, ext } = parts(path);
  const re = new RegExp(`^${escape(prefix)}(\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3})${escape(ext)}(\\.gz)?$`);
  const out: Backup[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = re.exec(name);
    if (m === null) continue;
    const [date, time] = m[1]!.split('T') as [string, string];
    const iso = `${date}T${time.slice(0, 8).replaceAll('-', ':')}${time.slice(8)}Z`;
    out.push({ path: join(dir, name), time: Date.parse(iso), compressed: m[2] !== undefined });
  }
  return out.sort((a, b) => b.time - a.time);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function gzipFile(path: string): Promise<void> {
  const tmp = `${path}.gz.tmp`;
  await pipeline(createReadStream(path), createGzip(), createWriteStream(tmp));
  const fh = await open(tmp, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, `${path}.gz`);
  await fsyncDir(dirname(path));
  await rm(path);
}

/** Compresses and removes rotated files per the policy; returns the paths it removed. */
export async function millBackups(path: string, policy: BackupPolicy, now: number): Promise<string[]> {
  const removed: string[] = [];
  const remove = async (p: string) => {
    await rm(p, { force: true });
    removed.push(p);
  };
  const all = await listBackups(path);
  // A plain and a compressed copy of one rotation (a crash between the two steps) count as one: the compressed.
  const backups: Backup[] = [];
  for (const b of all) {
    if (!b.compressed && all.some((o) => o.compressed && o.path === `${b.path}.gz`)) await remove(b.path);
    else backups.push(b);
  }
  const keep: Backup[] = [];
  for (const [i, b] of backups.entries()) {
    const tooMany = policy.maxBackups > 0 && i >= policy.maxBackups;
    const tooOld = policy.maxAgeMs > 0 && b.time < now - policy.maxAgeMs;
    if (tooMany || tooOld) await remove(b.path);
    else keep.push(b);
  }
  if (policy.compress) for (const b of keep) if (!b.compressed) await gzipFile(b.path);
  const { dir, prefix } = parts(path);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith(prefix) && name.endsWith('.gz.tmp')) await rm(join(dir, name), { force: true });
  }
  return removed;
}
