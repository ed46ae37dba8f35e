// The end-to-end benchmark (issue 18, §4): the compiled `flowagg run` in a process of its own, Antrea Agents
// (`flowagg simulate`) in another, over TCP and over gRPC, and the IPFIX exporter to a collector process.
// Per transport two phases, each on a fresh run: Antrea's input (6 Agents, 200,000 flows, 929,483 records)
// sent as fast as it is taken, then a fixed rate for 5 minutes at the Agents' pace (each flow exported
// every 5 s). Figures per phase in bench/e2e/figures.ts; a PNG per transport of throughput, latency and
// lag over time beside the results. FLOWAGG_E2E_* change the shape (docs/benchmarks.md, "End to end"):
// Antrea's 200,000 flows offer 64,000 records/s, so to measure what flowagg takes rather than that pace,
// phase 1 needs more flows, and records in proportion (FLOWAGG_E2E_FLOWS=600000
// FLOWAGG_E2E_RECORDS=2788449: 192,000 records/s offered, the same 14.5 s of input); the results say
// what was offered, taken and skipped.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chooseProgram } from '../bin/program.js';
import { figures, results } from './e2e/figures.js';
import { type PhaseRun, runPhase } from './e2e/phase.js';
import { plotPhases } from './e2e/plot.js';
import type { BenchResult, Benchmark } from './types.js';

const env = (name: string, dflt: number) => Number(process.env[`FLOWAGG_E2E_${name}`] ?? dflt);
const NODES = env('NODES', 6);
const FLOWS = env('FLOWS', 200_000);
const RECORDS = env('RECORDS', 929_483);
const RATE = env('RATE', 5000);
const SECONDS = env('SECONDS', 300);
const TRANSPORTS = (process.env.FLOWAGG_E2E_TRANSPORTS ?? 'tcp,grpc').split(',') as ('tcp' | 'grpc')[];

const load = () => loadavg()[0]!.toFixed(1);

const bench: Benchmark = async (log) => {
  const root = join(import.meta.dirname, '..');
  const program = chooseProgram(root);
  if (program.kind !== 'compiled') throw new Error(`the benchmark runs the compiled flowagg: npm run build first (${program.kind === 'sources' ? (program.note ?? 'no dist/') : program.problem})`);
  const out: BenchResult[] = [];
  for (const transport of TRANSPORTS) {
    const phases: PhaseRun[] = [];
    const cases = [
      { name: `e2e ${transport}, as fast as taken`, agents: ['--flows', String(FLOWS), '--records', String(RECORDS)] },
      { name: `e2e ${transport}, ${RATE} records/s for ${SECONDS} s`, agents: ['--rate', String(RATE), '--duration', `${SECONDS}s`] },
    ];
    for (const c of cases) {
      const before = load();
      const p = await runPhase(transport, ['--nodes', String(NODES), ...c.agents]);
      const f = figures(p);
      const loads = `load average ${before} at start, ${load()} at end`;
      log(`${c.name}: ${Math.round(f.takenPerSecond)} records/s, ${f.lost} lost, ${f.cpuMicrosPerRecord.toFixed(1)} µs/record, p50 ${f.p50.toFixed(1)} s, p99 ${f.p99.toFixed(1)} s; ${loads}`);
      out.push(...results(c.name, p, f, loads));
      phases.push(p);
    }
    const png = join(import.meta.dirname, 'results', `${new Date().toISOString().slice(0, 10)}-e2e-${transport}.png`);
    // A picture that cannot be drawn does not cost the run its figures.
    await plotPhases(png, `flowagg run end to end over ${transport}: ${NODES} Agents as fast as taken, then ${RATE} records/s for ${SECONDS} s`, phases)
      .then(() => log(`drawn: ${png}`), (err: unknown) => log(`not drawn: ${(err as Error).message}`));
  }
  return out;
};

export default bench;
