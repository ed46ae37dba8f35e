import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { catalogueEntries } from '../lib/error-catalogue.js';
import { ERRORS_DOC, errorsDoc } from './errors-doc.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Not flowagg's: test doubles' codes, and the test harness's. */
const notListed = (code: string, file: string) => code.startsWith('FLOWAGG_ERR_TEST_') || file.startsWith('integration-tests/');

function sources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sources(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('error-catalogue.ts')) out.push(path);
  }
  return out;
}

/** Every code written in the sources (the catalogue aside), with a file that has it. */
function codesInSources(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const path of sources(ROOT)) {
    const file = relative(ROOT, path);
    for (const [, code] of readFileSync(path, 'utf8').matchAll(/['"`](FLOWAGG_ERR_[A-Z0-9_]+)['"`]/g)) {
      if (!notListed(code!, file)) codes.set(code!, file);
    }
  }
  return codes;
}

test('the error catalogue describes every code in the sources, and no code that is gone', () => {
  const described = new Set(catalogueEntries().map((e) => e.code));
  const inSources = codesInSources();
  const missing = [...inSources].filter(([code]) => !described.has(code as never)).map(([code, file]) => `${code} (${file})`);
  assert.deepEqual(missing, [], 'add these codes to lib/error-catalogue.ts, then run npm run generate');
  const gone = [...described].filter((code) => !inSources.has(code));
  assert.deepEqual(gone, [], 'these codes are no longer in the sources: remove them from lib/error-catalogue.ts');
});

test('every catalogue entry says what it means and what to do, once', () => {
  const entries = catalogueEntries();
  assert.equal(new Set(entries.map((e) => e.code)).size, entries.length);
  for (const { code, entry } of entries) assert.ok(entry.meaning.length > 10 && entry.action.length > 5, code);
});

test('docs/errors.md is what the catalogue renders (run npm run generate after changing it)', () => {
  assert.equal(readFileSync(ERRORS_DOC, 'utf8'), errorsDoc(), 'docs/errors.md is stale: run npm run generate');
});
