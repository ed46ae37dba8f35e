// Where each compacted partition's clean segments end, kept in `<dir>/cleaner-offset-checkpoint.json` as
// Kafka keeps its cleaner-offset-checkpoint, so that the first pass after a restart maps only what was
// written since the last pass, not the whole partition. Written after a pass's segments are in place: a
// crash in between leaves the older checkpoint, and the next pass maps more than it needed to. A
// checkpoint can only make a pass clean less, never drop a record (a record goes only when a later one of
// its key is mapped), so an unreadable file is set aside with a warning and the first passes are full.
import fs from 'node:fs';
import { join } from 'node:path';
import { componentLogger } from '../../telemetry/logger.js';
import type { CleanerCheckpoint } from './compaction-plan.js';
import { writeFileAtomic } from './fs-util.js';

const logger = componentLogger('log.embedded');
const FILE = 'cleaner-offset-checkpoint.json';

interface StoredCheckpoint {
  readonly firstDirty: number;
  /** null: no tombstone kept (JSON has no Infinity). */
  readonly nextTombstoneExpiry: number | null;
}

const isStored = (v: unknown): v is StoredCheckpoint =>
  typeof v === 'object' && v !== null && Number.isSafeInteger((v as StoredCheckpoint).firstDirty) &&
  ((v as StoredCheckpoint).nextTombstoneExpiry === null || Number.isFinite((v as StoredCheckpoint).nextTombstoneExpiry));

function read(path: string): Map<string, CleanerCheckpoint> {
  const entries = new Map<string, CleanerCheckpoint>();
  if (!fs.existsSync(path)) return entries;
  try {
    const stored = (JSON.parse(fs.readFileSync(path, 'utf8')) as { partitions?: Record<string, unknown> }).partitions ?? {};
    for (const [partition, v] of Object.entries(stored)) {
      if (!isStored(v)) throw new Error(`partition ${partition}: ${JSON.stringify(v)} is not {firstDirty, nextTombstoneExpiry}`);
      entries.set(partition, { firstDirty: v.firstDirty, nextTombstoneExpiry: v.nextTombstoneExpiry ?? Infinity });
    }
  } catch (err) {
    logger.warn({ path, err }, 'the cleaner checkpoint is unreadable: compacted partitions are mapped in full at their next pass');
    entries.clear();
  }
  return entries;
}

export class CleanerCheckpoints {
  private constructor(
    private readonly path: string,
    private readonly entries: Map<string, CleanerCheckpoint>,
  ) {}

  static load(dir: string): CleanerCheckpoints {
    const path = join(dir, FILE);
    return new CleanerCheckpoints(path, read(path));
  }

  /** The partition's checkpoint, unless it points past the log's end (a tail cut at recovery): then none. */
  get(topic: string, partition: number, logEnd: number): CleanerCheckpoint | undefined {
    const c = this.entries.get(`${topic}/${partition}`);
    return c !== undefined && c.firstDirty <= logEnd ? c : undefined;
  }

  set(topic: string, partition: number, c: CleanerCheckpoint): void {
    this.entries.set(`${topic}/${partition}`, { firstDirty: c.firstDirty, nextTombstoneExpiry: c.nextTombstoneExpiry });
    const partitions = Object.fromEntries([...this.entries].map(([p, e]) => [p, { firstDirty: e.firstDirty, nextTombstoneExpiry: Number.isFinite(e.nextTombstoneExpiry) ? e.nextTombstoneExpiry : null }]));
    writeFileAtomic(this.path, Buffer.from(`${JSON.stringify({ version: 1, partitions }, null, 2)}\n`));
  }
}
