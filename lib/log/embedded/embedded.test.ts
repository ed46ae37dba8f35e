// The shared contract suite (lib/log/testing/contract.ts) against the embedded backend.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { runLogContract } from '../testing/contract.js';
import { openEmbeddedLog } from './index.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

runLogContract(
  'embedded',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'flowagg-log-contract-'));
    dirs.push(dir);
    return openEmbeddedLog({ dir });
  },
  { timeoutMs: 10_000, quietMs: 200 },
);
