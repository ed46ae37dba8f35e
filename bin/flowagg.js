#!/usr/bin/env node
// @ts-check
// Runs the compiled CLI (npm run build) when dist/ holds a complete build of the sources present, and
// otherwise the TypeScript sources through tsx, in this process (no child: signals reach the program).
// bin/program.js says how the choice is made.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chooseProgram } from './program.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const program = chooseProgram(root);
/** @type {{ main(argv: string[]): Promise<number> }} */
let mod;
if (program.kind === 'compiled') {
  mod = await import(pathToFileURL(program.entry).href);
} else if (program.kind === 'sources') {
  // Told to a person at a terminal; scripts and tests that read stderr get the program's output only.
  if (program.note !== undefined && process.stderr.isTTY) process.stderr.write(`flowagg: ${program.note}\n`);
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('flowagg: tsx is not installed (a production install), so the sources cannot run: run `npm run build` where the dev dependencies are\n');
    process.exit(1);
  }
  mod = await tsx.tsImport(pathToFileURL(program.entry).href, import.meta.url);
} else {
  process.stderr.write(`flowagg: ${program.problem}\n`);
  process.exit(1);
}
process.exitCode = await mod.main(process.argv.slice(2));
