// Plays a chaos schedule against a running deployment: each event at its time, without waiting for the ones
// before it to finish (a stall may overlap a kill, an outage several events). An event whose service is not
// running then (killed a moment ago, still starting) is skipped and says so. What happened, when, goes to
// the timeline the test prints; the broker's downtimes are kept for the bound on what ingest may lose.
// A deployment without a broker of its own (the embedded log's) plays no broker events or rebalances.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RestartableKafka } from '../../harness/kafka.js';
import type { Pod } from './pod.js';
import { type ChaosEvent, type ServiceName, describeEvent } from './schedule.js';
import type { Sinks } from './sinks.js';

/** What the events act on: the services, and the destinations. */
export interface ChaosTarget extends Pick<Sinks, 'collector' | 'clickhouse'> {
  pod(name: ServiceName): Pod;
}

export interface Timeline {
  readonly lines: string[];
  /** When the broker was down, ms since the epoch. */
  readonly brokerDown: { from: number; to: number }[];
  /** When an ingest replica (or `flowagg run`, ingest included) was killed, ms since the epoch. */
  readonly ingestKilled: number[];
  /** How long each stall (SIGSTOP) of an ingest replica or `flowagg run` lasted, ms. */
  readonly ingestStalledMs: number[];
}

/** A service that ingests: what it held when killed is lost. */
const ingests = (service: ServiceName) => service.startsWith('ingest') || service === 'run';

/** The second kill of a `kill` event: `ms` into the next run's start, once it began. */
async function killAgain(pod: Pod, ms: number, restartAfterMs: number, timeline: Timeline): Promise<string> {
  while (pod.state === 'down') await sleep(20);
  await sleep(ms);
  const was = pod.state;
  const at = Date.now();
  if (!(await pod.kill(restartAfterMs, { starting: true }))) return `killed, not again: ${pod.name} was ${pod.state}`;
  if (ingests(pod.name as ServiceName)) timeline.ingestKilled.push(at);
  return `killed, and again while it was ${was}`;
}

async function play(e: ChaosEvent, d: ChaosTarget, broker: RestartableKafka | undefined, timeline: Timeline): Promise<string> {
  switch (e.kind) {
    case 'kill': {
      const at = Date.now();
      if (!(await d.pod(e.service).kill(e.restartAfterMs))) return `skipped: ${e.service} was ${d.pod(e.service).state}`;
      if (ingests(e.service)) timeline.ingestKilled.push(at);
      return e.againAfterMs === undefined ? 'done' : killAgain(d.pod(e.service), e.againAfterMs, e.restartAfterMs, timeline);
    }
    case 'stall':
      if (!(await d.pod(e.service).stall(e.ms))) return `skipped: ${e.service} was ${d.pod(e.service).state}`;
      if (ingests(e.service)) timeline.ingestStalledMs.push(e.ms);
      return 'done';
    case 'broker': {
      if (broker === undefined) throw new Error('a broker event, and no broker');
      const from = Date.now();
      broker.kill();
      await sleep(e.restartAfterMs);
      await broker.resume();
      timeline.brokerDown.push({ from, to: Date.now() });
      return `back after ${((Date.now() - from) / 1000).toFixed(1)} s`;
    }
    case 'outage':
      if (e.destination === 'clickhouse') {
        d.clickhouse.down();
        await sleep(e.ms);
        d.clickhouse.up();
      } else {
        await d.collector.down();
        await sleep(e.ms);
        await d.collector.up();
      }
      return 'done';
    case 'rebalance': {
      const third = d.pod('process-3');
      if (third.state === 'stopped') {
        await third.start().catch(() => undefined);
        return 'process-3 joined';
      }
      await third.stop();
      return 'process-3 left';
    }
  }
}

/** Runs the events from now; resolves once every one of them has finished. */
export async function playSchedule(events: readonly ChaosEvent[], d: ChaosTarget, broker: RestartableKafka | undefined, log: (line: string) => void): Promise<Timeline> {
  const timeline: Timeline = { lines: [], brokerDown: [], ingestKilled: [], ingestStalledMs: [] };
  const start = Date.now();
  const running: Promise<void>[] = [];
  for (const e of events) {
    await sleep(Math.max(0, start + e.at - Date.now()));
    running.push(play(e, d, broker, timeline).then(
      (outcome) => {
        const line = `${describeEvent(e)}: ${outcome}`;
        timeline.lines.push(line);
        log(line);
      },
      (err: unknown) => {
        timeline.lines.push(`${describeEvent(e)}: failed: ${(err as Error).message}`);
        throw err;
      },
    ));
  }
  await Promise.all(running);
  return timeline;
}
