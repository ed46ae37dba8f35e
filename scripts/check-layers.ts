// `npm run lint`: imports only go down the floors of docs/design.md. A module may import its own floor
// and the floors below; the three services stand side by side and share code only through schemas/ and
// lib/. Test code (*.test.ts, testing/ folders) may also use the test clients: the synthetic Antrea
// workload (simulate/) and the harness of integration-tests/. Folders on no floor (bin, scripts, bench,
// integration-tests, infra) are tools and tests of the whole, free to import anything.
import { readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Top floor first; the folders of one floor may not import each other. */
export const FLOORS: readonly (readonly string[])[] = [['app'], ['simulate'], ['ingest', 'processor', 'exporters'], ['schemas'], ['lib']];
const TEST_CLIENTS = ['simulate/', 'integration-tests/harness/'];

const topFolder = (path: string) => path.split('/')[0]!;
const floorOf = (path: string) => FLOORS.findIndex((folders) => folders.includes(topFolder(path)));
const isTestCode = (path: string) => path.endsWith('.test.ts') || path.split('/').includes('testing');

/** Why `from` may not import `to` (both relative to the repository root), or undefined when it may. */
export function layerViolation(from: string, to: string): string | undefined {
  const source = floorOf(from);
  if (source === -1) return undefined;
  const target = floorOf(to);
  if (target !== -1 && target > source) return undefined;
  if (target === source && topFolder(from) === topFolder(to)) return undefined;
  if (isTestCode(from) && TEST_CLIENTS.some((client) => to.startsWith(client))) return undefined;
  if (target === -1) return `${topFolder(to)}/ is on no floor: only tools and tests import it`;
  if (target === source) return `${topFolder(from)}/ and ${topFolder(to)}/ are services side by side: share through schemas/ or lib/`;
  return `${topFolder(to)}/ is above ${topFolder(from)}/ (floors, top first: ${FLOORS.map((f) => f.join(' ')).join(' → ')})`;
}

// Static imports and re-exports (`from '…'`), side-effect imports and dynamic import(): relative ones only.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.\.?\/[^'"]+)['"]/gm;

/** The relative imports of a module's text, as paths from the repository root. */
export function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1]!)));
}

function sourceFiles(root: string, dir: string, out: string[]): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(root, path, out);
    else if (/\.(ts|js)$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every import of the floors that goes up or sideways, one line each. */
export function layerViolations(root: string): string[] {
  const lines: string[] = [];
  for (const file of FLOORS.flat().flatMap((folder) => sourceFiles(root, folder, []))) {
    for (const target of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      const why = layerViolation(file, target);
      if (why !== undefined) lines.push(`${file} imports ${target}: ${why}`);
    }
  }
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const violations = layerViolations(join(import.meta.dirname, '..'));
  for (const line of violations) console.error(`check-layers: ${line}`);
  if (violations.length > 0) process.exit(1);
}
