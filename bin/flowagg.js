#!/usr/bin/env node
// Runs the compiled CLI (npm run build) when it exists, otherwise the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/lib/cli/main.js', import.meta.url));
let mod;
if (existsSync(compiled)) {
  mod = await import(pathToFileURL(compiled).href);
} else {
  const { tsImport } = await import('tsx/esm/api');
  mod = await tsImport('../lib/cli/main.ts', import.meta.url);
}
process.exitCode = await mod.main(process.argv.slice(2));
