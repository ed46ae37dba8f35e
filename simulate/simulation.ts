// `flowagg simulate`'s engine: synthetic Antrea Agents, one per Node, each with its own connection to the
// collector, sending the records of the workload's flows as they fall due on the wall clock, no faster
// than the target rate, until the duration or the record count is reached or the caller aborts; then what
// was sent. When the rate holds records back by more than an export interval, they are skipped (the Agents
// fall behind, and their next records carry the counts), so that the records' times stay close to the
// clock; when the CPU does (the simulator cannot make records that fast), they go out late, and the
// progress line says how far behind.
import { lookup } from 'node:dns/promises';
import { antreaWorkload, type AgentNode, type Workload } from './antrea/workload.js';
import { FlowaggError } from '../lib/errors.js';
import { Agent } from './agent.js';
import { DeltaCarry } from './carry.js';
import { SIMULATE_CONNECT } from './errors.js';
import { GrpcLink } from './grpc.js';
import { Ledger } from './ledger.js';
import type { Link } from './link.js';
import type { Shape } from './plan.js';
import type { NodeReport, Progress, SimulationReport } from './report.js';
import { Schedule } from './schedule.js';
import { bindsLoopback, loopbackSource } from './source-address.js';
import { StreamLink } from './stream-link.js';
import { tcpDial, type Target } from './tcp.js';
import { type TlsMaterial, tlsDial } from './tls.js';
import { TokenBucket } from './token-bucket.js';
import { UdpLink } from './udp.js';

export const SIMULATE_TRANSPORTS = ['udp', 'tcp', 'tls', 'grpc'] as const;
export type SimulateTransport = (typeof SIMULATE_TRANSPORTS)[number];

export interface SimulationOptions {
  /** The cluster, its flows and the rate (plan.ts). */
  readonly shape: Shape;
  readonly transport: SimulateTransport;
  readonly host: string;
  readonly port: number;
  /** Stop after this long of sending, or after this many records handed to the links; neither: at abort. */
  readonly durationMs?: number | undefined;
  readonly maxRecords?: number | undefined;
  /** For tls and grpc. */
  readonly tls?: TlsMaterial | undefined;
  /** Bind a loopback address per Node against a loopback collector (source-address.ts). */
  readonly bindLoopback: boolean;
  readonly templateRefreshMs: number;
  readonly connectTimeoutMs: number;
  readonly perFlow: boolean;
}

export interface SimulationHooks {
  readonly signal?: AbortSignal;
  /** Called once a second while records are sent. */
  readonly progress?: (p: Progress) => void;
  /** Called once connected, with what is about to run. */
  readonly started?: (nodes: readonly AgentNode[], sourceAddresses: boolean) => void;
}

/** Records handled per turn of the event loop, so that socket callbacks and timers get theirs. */
const MAX_PER_TURN = 4096;
const CLOSE_TIMEOUT_MS = 5000;

function linkFor(o: SimulationOptions, node: AgentNode, target: Target, source: string | undefined): Link {
  switch (o.transport) {
    case 'udp':
      return new UdpLink(node, target, source, o.templateRefreshMs);
    case 'tcp':
      return new StreamLink(node, tcpDial(target, source, o.connectTimeoutMs), source);
    case 'tls':
      return new StreamLink(node, tlsDial(target, o.tls!, source, o.connectTimeoutMs), source);
    case 'grpc':
      return new GrpcLink(target, o.tls!, source, o.connectTimeoutMs);
  }
}

/** Why some Nodes but not all may connect: they all come from one address (a collector not on this host's loopback). */
const PEER_HINT =
  '; every Node connects from this host\'s address, and a collector may limit connections per address (flowagg: ingest.tcp.maxConnectionsPerSource, ingest.grpc.maxConnectionsPerPeer)';

async function allUp(links: readonly Link[], nodes: readonly AgentNode[], o: SimulationOptions, bound: boolean, signal: AbortSignal | undefined): Promise<void> {
  const end = Date.now() + o.connectTimeoutMs;
  while (links.some((l) => l.state !== 'up') && signal?.aborted !== true) {
    if (Date.now() > end) {
      const down = links.flatMap((l, i) => (l.state === 'up' ? [] : [`${nodes[i]!.name}: ${l.lastError ?? 'no answer'}`]));
      const hint = !bound && o.transport !== 'udp' && down.length < links.length ? PEER_HINT : '';
      throw new FlowaggError(
        SIMULATE_CONNECT,
        `${down.length} of ${links.length} Nodes could not connect within ${o.connectTimeoutMs} ms (${down.slice(0, 3).join('; ')}${down.length > 3 ? '; …' : ''})${hint}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function simulate(o: SimulationOptions, hooks: SimulationHooks = {}): Promise<SimulationReport> {
  const { shape } = o;
  const { address } = await lookup(o.host);
  const target: Target = { address, port: o.port };
  const bind = o.bindLoopback && bindsLoopback(address);
  const interval = shape.workload.exportIntervalS;
  // The first records fall due about now: a flow's first export is one interval after it starts, give or
  // take the Nodes' clock offsets (workload.ts); the schedule moves to when every Node is connected.
  const workload = antreaWorkload({ ...shape.workload, startTime: Math.floor(Date.now() / 1000) + 2 - interval });
  const nodes = workload.nodes;
  const links = nodes.map((node, i) => linkFor(o, node, target, bind ? loopbackSource(shape.workload.firstNode + i) : undefined));
  const ledger = new Ledger(nodes.length, { perFlow: o.perFlow });
  // Laid out before connecting: that takes a while with many flows, and would hold up the handshakes.
  const schedule = new Schedule(workload);
  for (const l of links) l.start();
  try {
    await allUp(links, nodes, o, bind, hooks.signal);
  } catch (err) {
    await Promise.all(links.map((l) => l.close(0)));
    throw err;
  }
  hooks.started?.(nodes, bind);

  const startedAt = Date.now();
  const cpu = process.cpuUsage();
  schedule.alignTo(startedAt);
  const carry = new DeltaCarry(shape.workload.recordsPerHalf);
  const agents = nodes.map((node, i) => new Agent(node, links[i]!, ledger, carry));
  const bucket = new TokenBucket(shape.bucketRate, Math.max(10, shape.bucketRate / 10), startedAt);
  const lateMs = interval * 1000;
  let handedOver = 0;
  let behindMs = 0;
  let stoppedAt = 0;

  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (stoppedAt !== 0) return;
      stoppedAt = Date.now();
      clearTimeout(timer);
      clearInterval(progress);
      hooks.signal?.removeEventListener('abort', stop);
      for (const a of agents) a.flush();
      resolve();
    };
    let lastSent = 0;
    const progress = setInterval(() => {
      const sent = ledger.totals.records;
      hooks.progress?.({
        elapsedMs: Date.now() - startedAt, sent, lastSecond: sent - lastSent, target: shape.rate, nodes: links.length,
        connected: links.filter((l) => l.state === 'up').length, lost: ledger.lostRecords,
        skipped: ledger.skippedRecords.late + ledger.skippedRecords.unavailable, behindMs,
      });
      lastSent = sent;
    }, 1000);
    hooks.signal?.addEventListener('abort', stop, { once: true });
    if (hooks.signal?.aborted === true) stop();

    const turn = () => {
      const now = Date.now();
      if (o.durationMs !== undefined && now - startedAt >= o.durationMs) return stop();
      let tokens = bucket.available(now);
      let handled = 0;
      for (; handled < MAX_PER_TURN; handled++) {
        if (o.maxRecords !== undefined && handedOver >= o.maxRecords) return stop();
        const due = schedule.nextDue();
        if (due > now) break;
        if (tokens < 1) {
          // Held back by the rate, not by the CPU: a record this late is skipped, as an Agent that cannot
          // keep up exports its flows less often.
          if (now - due <= lateMs) break;
          const r = schedule.take();
          agents[r.node.index]!.late(r);
          continue;
        }
        const r = schedule.take();
        if (agents[r.node.index]!.offer(r)) {
          tokens--;
          bucket.take(1);
          handedOver++;
        }
      }
      for (const a of agents) a.flush();
      const next = schedule.nextDue();
      behindMs = Math.max(0, now - next);
      const wait = handled === MAX_PER_TURN ? 0 : next > now ? Math.min(next - now, 20) : Math.min(Math.max(1, bucket.msUntilToken()), 20);
      timer = wait === 0 ? (setImmediate(turn) as unknown as NodeJS.Timeout) : setTimeout(turn, wait);
    };
    turn();
  });

  const used = process.cpuUsage(cpu);
  const upAtEnd = links.map((l) => l.state === 'up');
  await Promise.all(links.map((l) => l.close(CLOSE_TIMEOUT_MS)));
  return report(o, shape, { startedAt, durationMs: stoppedAt - startedAt, cpuSeconds: (used.user + used.system) / 1e6, nodes, links, upAtEnd, ledger, workload });
}

function report(
  o: SimulationOptions,
  shape: Shape,
  run: {
    startedAt: number; durationMs: number; cpuSeconds: number; nodes: readonly AgentNode[]; links: readonly Link[]; upAtEnd: readonly boolean[]; ledger: Ledger; workload: Workload;
  },
): SimulationReport {
  const { ledger, links } = run;
  const nodes: NodeReport[] = run.nodes.map((node, i) => {
    const l = links[i]!;
    const t = ledger.nodes[i]!;
    return {
      name: node.name, observationDomainId: node.observationDomainId, sourceAddress: l.sourceAddress ?? null,
      connected: run.upAtEnd[i]!, connects: l.connects, messages: l.messages, bytes: l.bytes, lastError: l.lastError ?? null, ...t,
    };
  });
  const flowSums = ledger.flows(run.workload);
  return {
    transport: o.transport, target: `${o.host}:${o.port}`, startedAt: new Date(run.startedAt).toISOString(), durationMs: run.durationMs, cpuSeconds: run.cpuSeconds,
    flows: { concurrent: shape.flows, recordsPerFlow: shape.workload.recordsPerHalf, exportIntervalS: shape.workload.exportIntervalS, seed: shape.workload.seed },
    rate: { target: shape.rate, natural: shape.natural, achieved: run.durationMs > 0 ? (ledger.totals.records * 1000) / run.durationMs : 0 },
    records: { sent: ledger.totals.records, lost: ledger.lostRecords, skipped: { ...ledger.skippedRecords } },
    totals: { ...ledger.totals }, nodes, ...(flowSums && { flowSums }),
  };
}
