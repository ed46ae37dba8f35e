// The Antrea Agents of the chaos test: one `flowagg simulate` per transport, each with Nodes of its own
// (--first-node), sending at the rate its flows give for a fixed time and reconnecting as Agents do; at the
// end each says what it sent, per Node and per flow (--per-flow -o json), which is what flows.raw is
// judged against.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { SimulationReport } from '../../../simulate/report.js';
import { type ChaosProfile, LEAD_IN_S } from './profile.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'flowagg.js');

export type AgentTransport = 'tcp' | 'grpc' | 'udp';

export interface AgentRun {
  readonly transport: AgentTransport;
  /** Resolves once every Node is connected; rejects if the simulator exits first. */
  readonly connected: Promise<void>;
  /** What it sent, once it ended. */
  readonly report: Promise<SimulationReport>;
  stderr(): string;
}

export function startAgents(transport: AgentTransport, target: string, opts: { profile: ChaosProfile; firstNode: number; seconds: number; tlsDir: string }): AgentRun {
  const p = opts.profile;
  const args = [
    BIN, 'simulate', '--transport', transport, '--target', target, '--nodes', String(p.nodes), '--first-node', String(opts.firstNode),
    '--flows', String(p.flows), '--export-interval', `${p.exportIntervalSeconds}s`, '--seed', String(p.seed + opts.firstNode),
    '--duration', `${opts.seconds}s`, '--connect-timeout', '60s', '--per-flow', '-o', 'json',
    ...(transport === 'grpc' ? ['--tls-dir', opts.tlsDir] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  // 'close', not 'exit': the report is the last of stdout, and 'exit' can come before stdout's last data
  // (a chaos run judged "exited (0) with no report" from a simulator that had written it).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const connected = new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-20_000);
      if (stderr.includes('Nodes connected over')) resolve();
    });
    void exited.then((code) => reject(new Error(`flowagg simulate --transport ${transport} exited (${code}) before its Nodes connected:\n${stderr}`)));
  });
  connected.catch(() => {});
  // Exit status 1 says records were lost on the way (a killed collector): the report says which, and is judged.
  const report = exited.then((code) => {
    if (stdout.trim() === '') throw new Error(`flowagg simulate --transport ${transport} exited (${code}) with no report:\n${stderr}`);
    return JSON.parse(stdout) as SimulationReport;
  });
  report.catch(() => {});
  return { transport, connected, report, stderr: () => stderr };
}

/** A chaos run's three simulators, TCP, gRPC and UDP, each with Nodes of its own, for the events and a lead-in before and after. */
export function startChaosAgents(targets: Readonly<Record<AgentTransport, string>>, o: { profile: ChaosProfile; tlsDir: string }): AgentRun[] {
  const seconds = LEAD_IN_S + o.profile.seconds + LEAD_IN_S;
  return (['tcp', 'grpc', 'udp'] as const).map((t, i) => startAgents(t, targets[t], { profile: o.profile, firstNode: i * o.profile.nodes, seconds, tlsDir: o.tlsDir }));
}
