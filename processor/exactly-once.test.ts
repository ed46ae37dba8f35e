// Issue 7's exactly-once, rebalance and replay scenarios on the embedded log (Kafka:
// exactly-once.functional.test.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { exactlyOnceSuite } from './testing/exactly-once.js';

const dir = mkdtempSync(join(tmpdir(), 'flowagg-exactly-once-'));
const embedded = { dir, fsync: { policy: 'interval' as const } };

exactlyOnceSuite({
  name: 'embedded log',
  logConfig: { backend: 'embedded', embedded },
  open: () => openEmbeddedLog(embedded),
  exclusive: true,
  timeoutMs: 300_000,
});
