import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { chooseProgram, sourceFingerprint, writeStamp } from './program.js';

/** A repository-shaped tree: sources, and optionally a dist/ as `npm run build` leaves it. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'flowagg-program-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const SOURCES = {
  'app/cli/main.ts': 'export async function main() { return 0; }',
  'schemas/flow-record.avsc': '{"type":"record"}',
  'app/cli/main.test.ts': '// a test',
  'tsconfig.json': '{}',
};

function built(files: Record<string, string> = SOURCES): string {
  const root = tree({ ...files, 'dist/app/cli/main.js': 'export async function main() { return 0; }' });
  writeStamp(root, sourceFingerprint(root));
  return root;
}

test('without dist/ the sources run, and nothing is said', () => {
  const root = tree(SOURCES);
  assert.deepEqual(chooseProgram(root), { kind: 'sources', entry: join(root, 'app/cli/main.ts') });
});

test('a complete build of the sources present runs compiled', () => {
  const root = built();
  assert.deepEqual(chooseProgram(root), { kind: 'compiled', entry: join(root, 'dist/app/cli/main.js') });
});

test('a dist/ without its stamp (a build that failed or is running) never runs', () => {
  const root = tree({ ...SOURCES, 'dist/app/cli/main.js': '' });
  const p = chooseProgram(root);
  assert.equal(p.kind, 'sources');
  assert.match(p.kind === 'sources' ? (p.note ?? '') : '', /no complete build/);
});

const stale = (mutate: (root: string) => void) => () => {
  const root = built();
  mutate(root);
  const p = chooseProgram(root);
  assert.equal(p.kind, 'sources');
  assert.match(p.kind === 'sources' ? (p.note ?? '') : '', /out of date/);
};

test('an edited source makes the build stale', stale((root) => writeFileSync(join(root, 'app/cli/main.ts'), 'export async function main() { return 1; }')));
test('a data file read at run time counts as a source', stale((root) => writeFileSync(join(root, 'schemas/flow-record.avsc'), '{"type":"enum"}')));
test('an added source makes the build stale', stale((root) => writeFileSync(join(root, 'app/cli/new.ts'), '')));
test('a removed source makes the build stale', stale((root) => rmSync(join(root, 'schemas/flow-record.avsc'))));
test('a source restored with an older modification time makes the build stale', stale((root) => utimesSync(join(root, 'app/cli/main.ts'), 1e9, 1e9)));
test('a changed tsconfig makes the build stale', stale((root) => writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}')));

test('tests and their helpers change no program: editing them keeps the build', () => {
  const root = built({ ...SOURCES, 'lib/log/testing/child.ts': '', 'lib/config/testdata/a.conf': '' });
  writeFileSync(join(root, 'app/cli/main.test.ts'), '// another test');
  writeFileSync(join(root, 'lib/log/testing/child.ts'), '// a child');
  writeFileSync(join(root, 'lib/log/testing/new.ts'), '');
  writeFileSync(join(root, 'lib/config/testdata/a.conf'), 'mode: Proxy');
  assert.equal(chooseProgram(root).kind, 'compiled');
});

test('an install with dist/ only (an image, a release) runs compiled; with neither, the problem is named', () => {
  const root = built();
  rmSync(join(root, 'app'), { recursive: true });
  rmSync(join(root, 'schemas'), { recursive: true });
  assert.equal(chooseProgram(root).kind, 'compiled');
  rmSync(join(root, 'dist'), { recursive: true });
  const p = chooseProgram(root);
  assert.equal(p.kind, 'none');
  assert.match(p.kind === 'none' ? p.problem : '', /neither dist\/app\/cli\/main\.js \(npm run build\) nor app\/cli\/main\.ts/);
});
