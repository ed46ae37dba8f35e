// The drift sender: the workload's Agents, one TCP connection each (from a loopback address of its own
// where the system allows), sending their streams to a running `flowagg run`. Agent time runs `speed` times
// faster than the wall clock from the first export, or, unpaced, every Agent sends everything as fast as
// flowagg reads it. Messages carry the Agents' own export times, so an event-time processor sees their
// time. What each Agent does besides (held back, disconnected, joining late, stopping for good) is its part
// of the script, in agent time; the ledger ends with exactly what was sent.
import type { AgentNode, Workload } from '../../../simulate/antrea/workload.js';
import { DeltaCarry } from '../../../simulate/carry.js';
import { bindsLoopback, loopbackSource } from '../../../simulate/source-address.js';
import { StreamLink } from '../../../simulate/stream-link.js';
import { tcpDial } from '../../../simulate/tcp.js';
import type { DueRecord } from './agent-streams.js';
import { DriftAgent } from './drift-agent.js';
import { SentLedger } from './sent-ledger.js';
import { untilHolds } from '../../../lib/testing/until.js';

/** One Agent's part, in agent time (s, absolute). */
export interface AgentScript {
  /** Its stream lags this far behind the others until `until`, when it sends what it held back. */
  readonly heldBack?: { readonly lagS: number; readonly until: number };
  /** Disconnected (connection closed) from `from` until `until`, then a new connection and the backlog. */
  readonly outage?: { readonly from: number; readonly until: number };
  /** Not running before this time: its first connection then, its earlier records never sent. */
  readonly joinsAt?: number;
  /** Gone for good at this time: its connection closed, its later records never sent. */
  readonly stopsAt?: number;
}

export interface SendOptions {
  readonly port: number;
  /** Agent seconds per wall second, or unpaced. */
  readonly speed: number | 'unpaced';
  readonly scripts?: ReadonlyMap<number, AgentScript>;
}

export interface SendResult {
  readonly ledger: SentLedger;
  readonly lost: number;
}

const HOST = '127.0.0.1';
const CONNECT_TIMEOUT_MS = 10_000;
const TICK_MS = 5;
/** An Agent with records due that could send nothing for this long is stuck (its connection never came up): the run fails rather than hang. */
const STUCK_MS = 30_000;

/** Where an Agent with an outage is in it. */
type OutagePhase = 'before' | 'down' | 'over';

/**
 * The agent time the Agent is to have sent everything before, when the cluster's is `now`; and what it does
 * on the way. What depends on what it has sent (going down, stopping) waits until it has sent what was due
 * before, however far the clock has moved meanwhile.
 */
async function follow(agent: DriftAgent, script: AgentScript | undefined, now: number, outages: Map<DriftAgent, OutagePhase>): Promise<number> {
  if (script?.joinsAt !== undefined && !agent.connected && now >= script.joinsAt && agent.nextDue !== Infinity) {
    agent.skipUntil(script.joinsAt);
    agent.connect();
  }
  if (script?.joinsAt !== undefined && now < script.joinsAt) return -Infinity;
  if (script?.stopsAt !== undefined && now >= script.stopsAt && agent.nextDue >= script.stopsAt) {
    if (agent.nextDue !== Infinity) await agent.stop();
    return -Infinity;
  }
  const outage = script?.outage;
  if (outage !== undefined) {
    const phase = outages.get(agent) ?? 'before';
    if (phase === 'before' && now >= outage.from && agent.nextDue >= outage.from) {
      await agent.disconnect();
      outages.set(agent, 'down');
    } else if (phase === 'down' && now >= outage.until) {
      agent.connect();
      outages.set(agent, 'over');
    }
    if (outages.get(agent) !== 'over') return Math.min(now, outage.from);
  }
  const held = script?.heldBack;
  const limit = held !== undefined && now < held.until ? now - held.lagS : now;
  return script?.stopsAt === undefined ? limit : Math.min(limit, script.stopsAt);
}

async function allUp(agents: readonly DriftAgent[]): Promise<void> {
  const down = () => agents.filter((a) => a.connected && !a.up).map((a) => a.node.name);
  await untilHolds('the Agents to connect (the value: those not up)', down, (names) => names.length === 0, { timeoutMs: CONNECT_TIMEOUT_MS });
}

export async function sendStreams(w: Workload, streams: readonly DueRecord[][], o: SendOptions): Promise<SendResult> {
  const bind = bindsLoopback(HOST);
  const ledger = new SentLedger();
  const carry = new DeltaCarry(w.options.recordsPerHalf);
  const linkFor = (node: AgentNode) => () => {
    const source = bind ? loopbackSource(node.index) : undefined;
    return new StreamLink(node, tcpDial({ address: HOST, port: o.port }, source, CONNECT_TIMEOUT_MS), source, { agentTime: true });
  };
  const agents = w.nodes.map((node) => new DriftAgent(node, streams[node.index]!, linkFor(node), ledger, carry));
  for (const a of agents) if (o.scripts?.get(a.node.index)?.joinsAt === undefined) a.connect();
  await allUp(agents);

  const start = Math.min(...agents.map((a) => a.nextDue));
  const startedAt = Date.now();
  const outages = new Map<DriftAgent, OutagePhase>();
  const clock = () => (o.speed === 'unpaced' ? Infinity : start + ((Date.now() - startedAt) / 1000) * o.speed);
  for (let lastSentAt = Date.now(); ;) {
    const now = clock();
    let busy = false;
    for (const a of agents) busy = a.pump(await follow(a, o.scripts?.get(a.node.index), now, outages)) || busy;
    if (agents.every((a) => a.nextDue === Infinity)) break;
    if (busy) lastSentAt = Date.now();
    const due = agents.filter((a) => a.nextDue < now);
    if (due.length > 0 && Date.now() - lastSentAt > STUCK_MS) throw new Error(`nothing sent for ${STUCK_MS} ms; records due at ${due.map((a) => `${a.node.name} (${a.up ? 'up' : 'not up'})`).join(', ')}`);
    if (!busy) await new Promise((r) => setTimeout(r, TICK_MS));
    else await new Promise((r) => setImmediate(r));
  }
  await Promise.all(agents.map((a) => a.disconnect()));
  return { ledger, lost: agents.reduce((n, a) => n + a.lost, 0) };
}
