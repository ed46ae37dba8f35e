// The page's files as the HTTP server serves them: / (index.html), /explorer/app.js, /explorer/app.css.
// From the build (static/ beside this module in dist/), else bundled now from the sources.
import { existsSync, readFileSync } from 'node:fs';
import { type StaticFile } from '../../lib/telemetry/http.js';
import { bundlePage } from './page-bundle.js';

export const STATIC_DIR = 'static';

export async function pageFiles(): Promise<Record<string, StaticFile>> {
  const built = new URL(`./${STATIC_DIR}/`, import.meta.url);
  const bundle = existsSync(new URL('app.js', built))
    ? { 'app.js': readFileSync(new URL('app.js', built)), 'app.css': readFileSync(new URL('app.css', built)) }
    : await bundlePage();
  return {
    '/': { contentType: 'text/html; charset=utf-8', body: readFileSync(new URL('./page/index.html', import.meta.url)) },
    '/explorer/app.js': { contentType: 'text/javascript; charset=utf-8', body: bundle['app.js'] },
    '/explorer/app.css': { contentType: 'text/css; charset=utf-8', body: bundle['app.css'] },
  };
}
