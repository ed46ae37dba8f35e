// A copy of the repository's program (its sources, bin/, package.json and the build script) in a
// temporary directory, with node_modules linked: where a test or benchmark can build and start flowagg
// as a user would, without touching the developer's own dist/.
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD_INPUTS, SOURCE_ROOTS } from '../../bin/program.js';

const REPO = join(import.meta.dirname, '..', '..');

export interface RepoCopy {
  readonly root: string;
  remove(): void;
}

export function copyRepository(): RepoCopy {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-copy-'));
  for (const path of [...SOURCE_ROOTS, ...BUILD_INPUTS, 'package.json', 'bin', 'scripts/build.ts']) {
    if (existsSync(join(REPO, path))) cpSync(join(REPO, path), join(root, path), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
