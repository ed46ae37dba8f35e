// How long and how hard a chaos run goes, from the environment. The defaults keep CI's run of both modes
// to a few minutes on two CPUs (events every 3-6 s for 40 s a mode, outages of 10 s, 40 flows per
// simulator); the run is
//   FLOWAGG_CHAOS_SECONDS=600 FLOWAGG_CHAOS_INTERVAL=10-20 FLOWAGG_CHAOS_OUTAGE=30 FLOWAGG_CHAOS_FLOWS=300
// and FLOWAGG_CHAOS_SEED=N replays a run's events (the seed is printed at the start of every run).
export type ChaosMode = 'Aggregate' | 'Proxy';

export interface ChaosProfile {
  readonly seed: number;
  readonly modes: readonly ChaosMode[];
  /** Seconds of events in each mode. */
  readonly seconds: number;
  /** Seconds between two events, drawn from [min, max]. */
  readonly interval: { readonly min: number; readonly max: number };
  /** How long ClickHouse or the IPFIX collector is down. */
  readonly outageSeconds: number;
  /** How long a SIGSTOP lasts. */
  readonly stallSeconds: number;
  /** A killed service is started again after 0 to this many seconds. */
  readonly restartSeconds: number;
  /** Concurrent flows of each of the three simulators (TCP, gRPC, UDP), and their Nodes. */
  readonly flows: number;
  readonly nodes: number;
  /** How often each Agent exports each flow. */
  readonly exportIntervalSeconds: number;
}

function numberVar(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const v = Number(text);
  if (!Number.isFinite(v) || v < min) throw new Error(`${name}=${text}: a number of at least ${min} is needed`);
  return v;
}

function intervalVar(name: string, fallback: string): { min: number; max: number } {
  const text = process.env[name] || fallback;
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(text);
  if (m === null || Number(m[1]) <= 0 || Number(m[1]) > Number(m[2])) throw new Error(`${name}=${text}: MIN-MAX seconds are needed, e.g. 10-20`);
  return { min: Number(m[1]), max: Number(m[2]) };
}

function modesVar(name: string): ChaosMode[] {
  const text = process.env[name] || 'Aggregate,Proxy';
  const modes = text.split(',').map((m) => m.trim());
  const bad = modes.filter((m) => m !== 'Aggregate' && m !== 'Proxy');
  if (bad.length > 0 || modes.length === 0) throw new Error(`${name}=${text}: Aggregate, Proxy or both (comma-separated)`);
  return modes as ChaosMode[];
}

export function chaosProfile(): ChaosProfile {
  return {
    seed: numberVar('FLOWAGG_CHAOS_SEED', Date.now() % 1_000_000, 0),
    modes: modesVar('FLOWAGG_CHAOS_MODES'),
    seconds: numberVar('FLOWAGG_CHAOS_SECONDS', 40, 10),
    interval: intervalVar('FLOWAGG_CHAOS_INTERVAL', '3-6'),
    outageSeconds: numberVar('FLOWAGG_CHAOS_OUTAGE', 10, 1),
    stallSeconds: numberVar('FLOWAGG_CHAOS_STALL', 5, 1),
    restartSeconds: numberVar('FLOWAGG_CHAOS_RESTART', 5, 0),
    flows: numberVar('FLOWAGG_CHAOS_FLOWS', 40, 1),
    nodes: numberVar('FLOWAGG_CHAOS_NODES', 3, 2),
    exportIntervalSeconds: numberVar('FLOWAGG_CHAOS_EXPORT_INTERVAL', 2, 1),
  };
}

export const describeProfile = (p: ChaosProfile): string =>
  `seed ${p.seed} (FLOWAGG_CHAOS_SEED=${p.seed} replays it), modes ${p.modes.join(', ')}, ${p.seconds} s of events a mode every ${p.interval.min}-${p.interval.max} s, ` +
  `outages ${p.outageSeconds} s, stalls ${p.stallSeconds} s, restarts after 0-${p.restartSeconds} s, 3 simulators of ${p.nodes} Nodes and ${p.flows} flows`;

/** Each mode's events from a seed of its own, so that FLOWAGG_CHAOS_SEED with FLOWAGG_CHAOS_MODES=Proxy replays Proxy's. */
export const modeSeed = (seed: number, mode: ChaosMode): number => seed + (mode === 'Proxy' ? 1 : 0);

/** Seconds the Agents send before the first event, and after the last one is due. */
export const LEAD_IN_S = 5;

/** How long a chaos run may take: each mode's Agents, and about four minutes to start and drain. */
export const chaosTimeoutMs = (p: ChaosProfile): number => p.modes.length * (p.seconds + 2 * LEAD_IN_S + 240) * 1000 + 120_000;

/** The soak's seconds at a steady rate (FLOWAGG_SOAK_SECONDS; 0: not asked for). */
export const soakSeconds = (): number => numberVar('FLOWAGG_SOAK_SECONDS', 0, 0);

/** How long the soak may take: its seconds, and ten minutes to start, drain and plot. */
export const soakTimeoutMs = (seconds: number): number => (seconds + 600) * 1000;

/** Why the chaos tests do not run here, or false: they run in every `npm test` unless FLOWAGG_CHAOS=0. */
export const chaosSkipped = (): string | false => (process.env.FLOWAGG_CHAOS === '0' ? 'FLOWAGG_CHAOS=0 skips the chaos tests' : false);

/** The longest that a chaos run or a soak this environment asks for may take. */
export function longRunTimeoutMs(): number {
  const chaos = chaosSkipped() === false ? chaosTimeoutMs(chaosProfile()) : 0;
  const soak = soakSeconds() > 0 ? soakTimeoutMs(soakSeconds()) : 0;
  return Math.max(chaos, soak);
}
