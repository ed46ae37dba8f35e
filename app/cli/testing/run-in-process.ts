// Test helpers: `flowagg run` in-process on a configuration file, and one Antrea Agent's IPFIX records
// sent to it over TCP.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { agentTemplate } from '../../../simulate/antrea/records.js';
import { antreaWorkload, type FlowPlan } from '../../../simulate/antrea/workload.js';
import { loadConfig } from '../../../lib/config/load.js';
import { MessageEncoder } from '../../../lib/ipfix/message-encoder.js';
import { until } from '../../../lib/testing/until.js';
import { serve } from '../../serve.js';
import { serviceConfigSchema } from '../../service-config.js';

/** Starts `flowagg run` on the configuration `yaml` (in `dir`); returns its ports. */
export async function startRun(t: { after: (fn: () => Promise<void>) => void }, dir: string, yaml: string) {
  const file = join(dir, 'flowagg.yaml');
  writeFileSync(file, `log:\n  embedded:\n    dir: ${join(dir, 'log')}\n    fsync:\n      policy: interval\n${yaml}`);
  const config = loadConfig(serviceConfigSchema, {
    file, env: {},
    overrides: { aggregatorTransportProtocol: ['tcp'], 'ingest.host': '127.0.0.1', 'ingest.port': 0, 'ingest.grpc.port': 0, 'apiServer.apiPort': 0, 'processor.commitInterval': 20 },
  });
  const stop = new AbortController();
  let ports: { http: number; collectors: Readonly<Record<string, number>> } | undefined;
  const running = serve(config, { command: 'run', processor: true, exporters: 'enabled', signal: stop.signal, onStarted: (p) => (ports = p) });
  t.after(async () => {
    stop.abort();
    await running;
  });
  return { file, ports: await until('the services to start', () => ports) };
}

/** One agent (node-0) exporting every flow it reports, in one TCP session; returns what it sent. */
export async function sendAgentRecords(port: number) {
  const w = antreaWorkload({ nodes: 2, flows: 40, recordsPerHalf: 2, seed: 5, ipv6Share: 0, mix: { intraNode: 1 } });
  const node = w.nodes[0]!;
  const encoder = new MessageEncoder({ observationDomainId: node.observationDomainId, exportTime: () => 1_700_000_100 });
  encoder.addTemplate(agentTemplate(4, node.observationDomainId));
  let sent = 0;
  for (const r of w.records()) {
    if (r.node !== node) continue;
    encoder.addRecord(agentTemplate(4, node.observationDomainId), r.values);
    sent++;
  }
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  for (const m of encoder.flush()) socket.write(m);
  const plans: FlowPlan[] = [...Array(w.flowCount).keys()].map((i) => w.flow(i)).filter((p) => p.reporters.some((r) => r.node === node));
  return { sent, plans, socket, node };
}

