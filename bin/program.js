// @ts-check
// Which program `bin/flowagg.js` runs: the compiled JavaScript in dist/ (`npm run build`), or the
// TypeScript sources through tsx. The build records a fingerprint of the sources it compiled (every
// file's path, size and modification time) in dist/build-stamp.json, written last; dist/ is run only
// when that stamp exists and the sources present still give the same fingerprint. So a partial build
// (no stamp) or a stale one (a source edited, added, removed or restored since) never runs in place of
// the sources. Plain JavaScript, because it decides before tsx is loaded; scripts/build.ts shares it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folders `tsc -p tsconfig.build.json` compiles (its "include"), and the files that steer it. */
export const SOURCE_ROOTS = ['app', 'simulate', 'ingest', 'processor', 'exporters', 'schemas', 'lib'];
export const BUILD_INPUTS = ['tsconfig.json', 'tsconfig.build.json'];
export const OUT_DIR = 'dist';
export const STAMP_FILE = 'build-stamp.json';
/** The CLI's module, relative to the repository root (sources) and to dist/ (compiled). */
export const ENTRY = 'app/cli/main';

/**
 * Tests, their helpers and their data are no part of the program (tsconfig.build.json excludes the same);
 * everything else in the roots (code, schemas, data files) is.
 */
// Test helpers live in testing/ folders.
const isTestFile = (/** @type {string} */ name) => name.endsWith('.test.ts');
const isTestDir = (/** @type {string} */ name) => name === 'testing' || name === 'testdata';

/**
 * Every file the program is built from, relative to `root`, sorted.
 * @param {string} root
 * @returns {string[]}
 */
export function sourceFiles(root) {
  /** @type {string[]} */
  const out = [];
  const walk = (/** @type {string} */ rel) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!isTestDir(entry.name)) walk(path);
      } else if (entry.isFile() && !isTestFile(entry.name)) out.push(path);
    }
  };
  for (const dir of SOURCE_ROOTS) if (existsSync(join(root, dir))) walk(dir);
  for (const file of BUILD_INPUTS) if (existsSync(join(root, file))) out.push(file);
  return out.sort();
}

/**
 * @param {string} root
 * @returns {{ fingerprint: string, files: number }}
 */
export function sourceFingerprint(root) {
  const hash = createHash('sha256');
  const files = sourceFiles(root);
  for (const file of files) {
    const st = statSync(join(root, file));
    hash.update(`${file}\t${st.size}\t${st.mtimeMs}\n`);
  }
  return { fingerprint: hash.digest('hex'), files: files.length };
}

/**
 * Written last by the build, and atomically, so that it exists only for a complete build.
 * @param {string} root
 * @param {{ fingerprint: string, files: number }} sources the fingerprint taken before compiling
 */
export function writeStamp(root, sources) {
  const path = join(root, OUT_DIR, STAMP_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ ...sources, builtAt: new Date().toISOString() }, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/**
 * @param {string} path
 * @returns {string | undefined} the fingerprint a stamp records
 */
function stampedFingerprint(path) {
  try {
    const { fingerprint } = JSON.parse(readFileSync(path, 'utf8'));
    return typeof fingerprint === 'string' ? fingerprint : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @typedef {{ kind: 'compiled', entry: string }
 *   | { kind: 'sources', entry: string, note?: string }
 *   | { kind: 'none', problem: string }} Program
 */

/**
 * @param {string} root the repository (or installed package) root
 * @returns {Program}
 */
export function chooseProgram(root) {
  const compiled = join(root, OUT_DIR, `${ENTRY}.js`);
  const sources = join(root, `${ENTRY}.ts`);
  const stampPath = join(root, OUT_DIR, STAMP_FILE);
  const built = existsSync(stampPath) && existsSync(compiled);
  if (!existsSync(sources)) {
    // An install that carries only dist/ (a container image, a packed release).
    if (built) return { kind: 'compiled', entry: compiled };
    return { kind: 'none', problem: `neither ${OUT_DIR}/${ENTRY}.js (npm run build) nor ${ENTRY}.ts exists under ${root}` };
  }
  if (!existsSync(join(root, OUT_DIR))) return { kind: 'sources', entry: sources };
  if (!built) return { kind: 'sources', entry: sources, note: `${OUT_DIR}/ holds no complete build (no ${STAMP_FILE}); running the TypeScript sources` };
  if (stampedFingerprint(stampPath) === sourceFingerprint(root).fingerprint) return { kind: 'compiled', entry: compiled };
  return { kind: 'sources', entry: sources, note: `${OUT_DIR}/ is out of date (the sources changed since npm run build); running the TypeScript sources` };
}
