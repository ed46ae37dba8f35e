// `npm run bench [filter]`: runs every bench/*.bench.ts (or those whose name contains the filter),
// prints a table, and records it with the machine it ran on in bench/results/<date>-<name>.md.
import { readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchResult, Benchmark } from './types.js';

const dir = import.meta.dirname;
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (filter === undefined || f.includes(filter)))
  .sort();

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${hostname()}`;
const rows: (BenchResult & { file: string })[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: Benchmark };
  console.log(`# ${file}`);
  for (const r of await mod.default((line) => console.log(`  ${line}`))) {
    rows.push({ ...r, file });
    const verdict = r.target === undefined ? '' : r.value >= r.target ? ' (target met)' : ` (target ${fmt(r.target)} missed)`;
    console.log(`  ${r.name}: ${fmt(r.value)} ${r.unit}${verdict}`);
  }
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2);
}

const date = new Date().toISOString().slice(0, 10);
const table = [
  `# Benchmark run ${new Date().toISOString()}`,
  '',
  `Machine: ${machine}`,
  '',
  '| benchmark | figure | unit | target | note |',
  '|---|---:|---|---:|---|',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.value)} | ${r.unit} | ${r.target === undefined ? '' : fmt(r.target)} | ${r.note ?? ''} |`),
  '',
].join('\n');
mkdirSync(join(dir, 'results'), { recursive: true });
const out = join(dir, 'results', `${date}-${filter ?? 'all'}.md`);
writeFileSync(out, table);
console.log(`\nrecorded in ${join('bench', 'results', basename(out))}`);
