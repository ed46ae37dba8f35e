// The page's files as the HTTP server serves them: / (index.html), /explorer/app.js, /explorer/app.css.
// From the build (static/ beside this module in dist/), else bundled now from the sources.
import { existsSync, readFileSync } from 'node:fs';
import type { StaticFile } from '../../lib/telemetry/http.js';
import { bundlePage, PAGE_FILES, type PageBundle } from './page-bundle.js';

export const STATIC_DIR = 'static';
/** Where the page's sources are (bundled, not compiled) and its bundle goes in dist/, from the repository root. */
export const PAGE_SOURCES = 'exporters/explorer/page';
export const PAGE_BUNDLE = `exporters/explorer/${STATIC_DIR}`;

export async function pageFiles(): Promise<Record<string, StaticFile>> {
  const built = new URL(`./${STATIC_DIR}/`, import.meta.url);
  const names = Object.keys(PAGE_FILES) as (keyof typeof PAGE_FILES)[];
  const bundle: PageBundle = existsSync(new URL('app.js', built))
    ? (Object.fromEntries(names.map((name) => [name, readFileSync(new URL(name, built))])) as PageBundle)
    : await bundlePage();
  return {
    '/': { contentType: 'text/html; charset=utf-8', body: readFileSync(new URL('./page/index.html', import.meta.url)) },
    ...Object.fromEntries(names.map((name) => [`/explorer/${name}`, { contentType: PAGE_FILES[name], body: bundle[name] }])),
  };
}
