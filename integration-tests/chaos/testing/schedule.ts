// The events of a chaos run, drawn from its seed before anything starts, so that a seed names one sequence
// of events (what the machine's timing does with it may still differ from run to run). Every kind of event
// comes at least once, in a shuffled order, before the rest are drawn by weight; the broker goes down at
// most once a minute of events (bringing it back takes the longest).
import { prng } from '../../harness/traffic.js';
import type { ChaosProfile } from './profile.js';

/** The services events pick from; `process-3` only comes and goes with rebalances. */
export const SERVICES = ['ingest-1', 'ingest-2', 'process-1', 'process-2', 'export-ipfix', 'export-clickhouse', 'export-flowlog'] as const;
export type ServiceName = (typeof SERVICES)[number] | 'process-3';
export type Destination = 'clickhouse' | 'collector';

export type ChaosEvent =
  | { readonly at: number; readonly kind: 'kill'; readonly service: ServiceName; readonly restartAfterMs: number }
  | { readonly at: number; readonly kind: 'stall'; readonly service: ServiceName; readonly ms: number }
  | { readonly at: number; readonly kind: 'broker'; readonly restartAfterMs: number }
  | { readonly at: number; readonly kind: 'outage'; readonly destination: Destination; readonly ms: number }
  /** A third processor joins the group when it is not there, leaves it (SIGTERM) when it is. */
  | { readonly at: number; readonly kind: 'rebalance' };

type Kind = ChaosEvent['kind'] | 'outage-clickhouse' | 'outage-collector';
const EVERY_KIND: readonly Kind[] = ['kill', 'stall', 'broker', 'outage-clickhouse', 'outage-collector', 'rebalance'];
const WEIGHTS: Readonly<Record<Kind, number>> = { kill: 5, stall: 2, broker: 1, 'outage-clickhouse': 1, 'outage-collector': 1, rebalance: 1, outage: 0 };

/** Events at ms offsets from the start of the run's events, within `profile.seconds`. */
export function chaosSchedule(profile: ChaosProfile, seed: number): ChaosEvent[] {
  const random = prng(seed);
  const between = (min: number, max: number) => min + random() * (max - min);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const first = [...EVERY_KIND];
  for (let i = first.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [first[i], first[j]] = [first[j]!, first[i]!];
  }
  const brokerBudget = Math.max(1, Math.floor(profile.seconds / 60));
  let brokers = 0;
  const draw = (): Kind => {
    const kinds = EVERY_KIND.filter((k) => k !== 'broker' || brokers < brokerBudget);
    const total = kinds.reduce((n, k) => n + WEIGHTS[k], 0);
    let u = random() * total;
    for (const k of kinds) if ((u -= WEIGHTS[k]) < 0) return k;
    return 'kill';
  };
  const events: ChaosEvent[] = [];
  for (let at = between(profile.interval.min, profile.interval.max) * 1000; at < profile.seconds * 1000; at += between(profile.interval.min, profile.interval.max) * 1000) {
    const kind = first.shift() ?? draw();
    if (kind === 'broker') brokers++;
    const restartAfterMs = Math.round(random() * profile.restartSeconds * 1000);
    events.push(
      kind === 'kill' ? { at, kind, service: pick(SERVICES), restartAfterMs }
        : kind === 'stall' ? { at, kind, service: pick(SERVICES), ms: profile.stallSeconds * 1000 }
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
      return `${at} SIGKILL ${e.service}, started again after ${(e.restartAfterMs / 1000).toFixed(1)} s`;
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
