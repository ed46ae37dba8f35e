// Issue 15's failed-commit test on the embedded log (Kafka: failed-commit.functional.test.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { failedCommitSuite } from './testing/failed-commit.js';

const embedded = { dir: mkdtempSync(join(tmpdir(), 'flowagg-failed-commit-')), fsync: { policy: 'interval' as const } };

failedCommitSuite({ name: 'embedded log', open: () => openEmbeddedLog(embedded), timeoutMs: 120_000 });
