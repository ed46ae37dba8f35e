// The destinations of a chaos run's exporters, started before any service: an IPFIX collector process
// (collector.ts) the events stop and start, a TCP proxy in front of the shared ClickHouse server that the
// events cut (a database of the run's own behind it), and the path of the flow log.
import { join } from 'node:path';
import type { ClickHouseForTests } from '../../harness/clickhouse.js';
import { OutageProxy } from '../../harness/outage-proxy.js';
import { freePort } from '../../harness/ports.js';
import { IpfixCollector } from './collector.js';

export interface Sinks {
  readonly collector: IpfixCollector;
  readonly clickhouse: OutageProxy;
  readonly database: string;
  readonly flowLog: string;
}

/** `name`: the run's, in the database's name; `dir`: where the collector's file and the flow log go. */
export async function startSinks(o: { name: string; dir: string; clickhouse: ClickHouseForTests }): Promise<Sinks> {
  const upstream = new URL(o.clickhouse.url);
  const clickhouse = await OutageProxy.start(upstream.hostname, Number(upstream.port || 8123));
  const collector = new IpfixCollector(await freePort(), join(o.dir, 'collector.ipfix'));
  await collector.start();
  return { collector, clickhouse, database: `chaos_${o.name.replaceAll('-', '_')}`, flowLog: join(o.dir, 'flows.log') };
}

export async function stopSinks(s: Sinks): Promise<void> {
  await s.collector.stop();
  await s.clickhouse.close();
}
