// The events of a chaos run, drawn from its seed before anything starts, so that a seed names one sequence
// of events (what the machine's timing does with it may still differ from run to run). Every kind of event
// of the run's plan comes at least once, in a shuffled order, before the rest are drawn by weight; the
// broker goes down at most once a minute of events (bringing it back takes the longest). Over Kafka
// (KAFKA_PLAN) any service is killed or stalled; on the embedded log (EMBEDDED_PLAN) the one `flowagg run`
// is, and sometimes killed again while it is starting after the kill.
import { seededRandom } from '../../../lib/prng.js';
import type { ChaosProfile } from './profile.js';

/** The services events pick from over Kafka; `process-3` only comes and goes with rebalances. */
export const SERVICES = ['ingest-1', 'ingest-2', 'process-1', 'process-2', 'export-ipfix', 'export-clickhouse', 'export-flowlog'] as const;
/** `run`: the one process of the embedded log's deployment. */
export type ServiceName = (typeof SERVICES)[number] | 'process-3' | 'run';
export type Destination = 'clickhouse' | 'collector';

export type ChaosEvent =
  /** `againAfterMs`: killed again that long after its next run started (while it is still starting). */
  | { readonly at: number; readonly kind: 'kill'; readonly service: ServiceName; readonly restartAfterMs: number; readonly againAfterMs?: number }
  | { readonly at: number; readonly kind: 'stall'; readonly service: ServiceName; readonly ms: number }
  | { readonly at: number; readonly kind: 'broker'; readonly restartAfterMs: number }
  | { readonly at: number; readonly kind: 'outage'; readonly destination: Destination; readonly ms: number }
  /** A third processor joins the group when it is not there, leaves it (SIGTERM) when it is. */
  | { readonly at: number; readonly kind: 'rebalance' };

type Kind = 'kill' | 'kill-twice' | 'stall' | 'broker' | 'outage-clickhouse' | 'outage-collector' | 'rebalance';

export interface SchedulePlan {
  readonly services: readonly ServiceName[];
  /** The kinds drawn, each with its weight, in the order the first round shuffles them. */
  readonly weights: Readonly<Partial<Record<Kind, number>>>;
}

export const KAFKA_PLAN: SchedulePlan = { services: SERVICES, weights: { kill: 5, stall: 2, broker: 1, 'outage-clickhouse': 1, 'outage-collector': 1, rebalance: 1 } };
export const EMBEDDED_PLAN: SchedulePlan = { services: ['run'], weights: { kill: 4, 'kill-twice': 2, stall: 2, 'outage-clickhouse': 1, 'outage-collector': 1 } };
/** A second kill comes up to this long after the run it kills started. */
const AGAIN_MAX_MS = 2000;

/** Events at ms offsets from the start of the run's events, within `profile.seconds`. */
export function chaosSchedule(profile: ChaosProfile, seed: number, plan: SchedulePlan = KAFKA_PLAN): ChaosEvent[] {
  const random = seededRandom(seed);
  const between = (min: number, max: number) => min + random() * (max - min);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const every = Object.keys(plan.weights) as Kind[];
  const first = [...every];
  for (let i = first.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [first[i], first[j]] = [first[j]!, first[i]!];
  }
  const brokerBudget = Math.max(1, Math.floor(profile.seconds / 60));
  let brokers = 0;
  const draw = (): Kind => {
    const kinds = every.filter((k) => k !== 'broker' || brokers < brokerBudget);
    const total = kinds.reduce((n, k) => n + plan.weights[k]!, 0);
    let u = random() * total;
    for (const k of kinds) if ((u -= plan.weights[k]!) < 0) return k;
    return 'kill';
  };
  const events: ChaosEvent[] = [];
  for (let at = between(profile.interval.min, profile.interval.max) * 1000; at < profile.seconds * 1000; at += between(profile.interval.min, profile.interval.max) * 1000) {
    const kind = first.shift() ?? draw();
    if (kind === 'broker') brokers++;
    const restartAfterMs = Math.round(random() * profile.restartSeconds * 1000);
    events.push(
      kind === 'kill' ? { at, kind, service: pick(plan.services), restartAfterMs }
        : kind === 'kill-twice' ? { at, kind: 'kill', service: pick(plan.services), restartAfterMs, againAfterMs: Math.round(random() * AGAIN_MAX_MS) }
          : kind === 'stall' ? { at, kind, service: pick(plan.services), ms: profile.stallSeconds * 1000 }
            : kind === 'broker' ? { at, kind, restartAfterMs }
              : kind === 'rebalance' ? { at, kind }
                : { at, kind: 'outage', destination: kind === 'outage-clickhouse' ? 'clickhouse' : 'collector', ms: profile.outageSeconds * 1000 },
    );
  }
  return events;
}

export function describeEvent(e: ChaosEvent): string {
  const at = `${(e.at / 1000).toFixed(1)} s`;
  switch (e.kind) {
    case 'kill':
      return `${at} SIGKILL ${e.service}, started again after ${(e.restartAfterMs / 1000).toFixed(1)} s${e.againAfterMs === undefined ? '' : `, killed again ${(e.againAfterMs / 1000).toFixed(1)} s into that start (and started again as long after)`}`;
    case 'stall':
      return `${at} SIGSTOP ${e.service} for ${e.ms / 1000} s`;
    case 'broker':
      return `${at} SIGKILL the Kafka broker, started again after ${(e.restartAfterMs / 1000).toFixed(1)} s`;
    case 'outage':
      return `${at} ${e.destination === 'clickhouse' ? 'ClickHouse' : 'the IPFIX collector'} down for ${e.ms / 1000} s`;
    case 'rebalance':
      return `${at} a processor joins or leaves`;
  }
}
