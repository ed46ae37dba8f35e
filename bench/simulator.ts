// `flowagg simulate -o json` as a process of its own, the benchmarks' Agents: its report once it ends, or
// what it said on stderr when it gave none.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SimulationReport } from '../simulate/report.js';

const CLI = join(import.meta.dirname, '../bin/flowagg.js');

export interface Simulator {
  readonly pid: number;
  /** Resolves with its report when it exits; rejects when it printed none. */
  readonly report: Promise<SimulationReport>;
}

/** `args` after `flowagg simulate -o json`: transport, target, Nodes, flows, how long. */
export function startSimulator(args: readonly string[]): Simulator {
  const sim = spawn(process.execPath, [CLI, 'simulate', '-o', 'json', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  sim.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  // Only the end matters when it fails: the progress lines of a long run would pile up.
  sim.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-20_000)));
  const report = new Promise<SimulationReport>((resolve, reject) => {
    sim.once('close', (code) => {
      if (stdout.startsWith('{')) resolve(JSON.parse(stdout) as SimulationReport);
      else reject(new Error(`flowagg simulate gave no report (exit ${code}):\n${stderr.slice(-3000)}`));
    });
  });
  return { pid: sim.pid!, report };
}
