// `npm run build`: the compiled program in dist/, complete. tsc compiles the TypeScript; every other file
// of the source folders (schemas/*.avsc and whatever else modules read beside themselves at run time) is
// copied to the same place under dist/; the flow explorer's page is bundled (exporters/explorer/page-bundle.ts)
// into dist/exporters/explorer/static/; last, dist/build-stamp.json records the fingerprint of the
// sources, taken before compiling, so that a source changed during or after the build makes bin/flowagg.js
// run the sources instead (bin/program.js). dist/ is removed first: nothing of an older build survives.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { OUT_DIR, SOURCE_ROOTS, sourceFiles, sourceFingerprint, writeStamp } from '../bin/program.js';
import { bundlePage } from '../exporters/explorer/page-bundle.js';
import { PAGE_BUNDLE } from '../exporters/explorer/static.js';

const root = join(import.meta.dirname, '..');
const out = join(root, OUT_DIR);
const started = Date.now();

const sources = sourceFingerprint(root);
rmSync(out, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch {
  console.error(`build: tsc failed; ${OUT_DIR}/ has no stamp, so bin/flowagg.js keeps running the sources`);
  process.exit(1);
}

const inRoots = (file: string) => SOURCE_ROOTS.some((dir) => file.startsWith(`${dir}/`));
const assets = sourceFiles(root).filter((file) => inRoots(file) && !file.endsWith('.ts'));
for (const file of assets) {
  mkdirSync(dirname(join(out, file)), { recursive: true });
  copyFileSync(join(root, file), join(out, file));
}

const page = join(out, PAGE_BUNDLE);
mkdirSync(page, { recursive: true });
const bundle = await bundlePage();
for (const [name, bytes] of Object.entries(bundle)) writeFileSync(join(page, name), bytes);

writeStamp(root, sources);
console.log(`build: ${OUT_DIR}/ from ${sources.files} source files, ${assets.length} copied as they are (${assets.join(', ')}), the explorer's page bundled (${Object.entries(bundle).map(([n, b]) => `${n} ${Math.round(b.length / 1024)} KiB`).join(', ')}), in ${((Date.now() - started) / 1000).toFixed(1)} s`);
