// `flowagg run` end to end on the embedded log: agents' IPFIX over TCP through ingest and the processor;
// the HTTP API's /flowrecords and /recordmetrics, and `flowagg get` showing them.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentTemplate } from '../../../simulate/antrea/records.js';
import { antreaWorkload } from '../../../simulate/antrea/workload.js';
import { loadConfig } from '../../../lib/config/load.js';
import { MessageEncoder } from '../../../lib/ipfix/message-encoder.js';
import { type ParsedArgs } from '../command.js';
import { runGet } from './get.js';
import { serve } from '../../serve.js';
import { serviceConfigSchema } from '../../service-config.js';
import { until } from '../../../lib/testing/until.js';

test('flowagg run: agents over TCP, aggregated; /flowrecords and flowagg get show the flows and the record metrics', async (t) => {
  const config = loadConfig(serviceConfigSchema, {
    env: {},
    overrides: {
      aggregatorTransportProtocol: ['tcp'], 'ingest.host': '127.0.0.1', 'ingest.port': 0, 'ingest.grpc.port': 0, 'apiServer.apiPort': 0, 'apiServer.bindAddress': '127.0.0.1',
      'log.embedded.dir': mkdtempSync(join(tmpdir(), 'flowagg-run-')), 'log.embedded.fsync.policy': 'interval', 'processor.commitInterval': 20,
    },
  });
  const stop = new AbortController();
  let ports: { http: number; collectors: Readonly<Record<string, number>> } | undefined;
  const running = serve(config, { command: 'run', processor: true, signal: stop.signal, onStarted: (p) => (ports = p) });
  t.after(async () => {
    stop.abort();
    await running;
  });
  await until('the services to start', async () => ports);
  // One agent (node-0) exporting every flow it reports, in one TCP session.
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
  const socket = connect(ports!.collectors.tcp!, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  for (const m of encoder.flush()) socket.write(m);
  const server = `127.0.0.1:${ports!.http}`;
  const metrics = await until('the records to be aggregated', async () => {
    const m = (await (await fetch(`http://${server}/recordmetrics`)).json()) as Record<string, number>;
    return m.numRecordsReceived === sent && m.numRecordsProcessed === sent && m.numFlows > 0 ? m : undefined;
  }, { timeoutMs: 60_000 });
  socket.end();
  assert.ok(sent > 0);
  const flows = w.flowCount - [...Array(w.flowCount).keys()].filter((i) => w.flow(i).reporters.every((r) => r.node !== node)).length;
  assert.equal(metrics.numFlows, flows);

  const out: string[] = [];
  const get = (positionals: string[], values: ParsedArgs['values']) => runGet({ positionals, values: { server, ...values } }, (s) => out.push(s));
  const plan = [...Array(w.flowCount).keys()].map((i) => w.flow(i)).find((p) => p.reporters[0]!.node === node)!;
  assert.equal(await get(['flowrecords'], { output: 'json', srcip: plan.sourceAddress, srcport: String(plan.sourcePort) }), 0);
  const records = JSON.parse(out.pop()!) as Record<string, unknown>[];
  assert.equal(records.length, 1, 'the filter finds the one flow');
  assert.deepEqual([records[0]!.sourceIPv4Address, records[0]!.sourceTransportPort, records[0]!.packetTotalCount], [plan.sourceAddress, plan.sourcePort, plan.totals.packets]);
  assert.equal(await get(['flowrecords'], {}), 0);
  const table = out.pop()!.trim().split('\n');
  assert.match(table[0]!, /^SRC_IP\s+DST_IP\s+SPORT\s+DPORT\s+PROTO/);
  assert.equal(table.length, flows + 1);
  assert.equal(await get(['recordmetrics'], { output: 'json' }), 0);
  assert.equal((JSON.parse(out.pop()!) as Record<string, number>).numFlows, flows);
  await assert.rejects(fetch(`http://${server}/flowrecords?srcip=999.1.1.1`).then(async (r) => {
    if (r.status !== 400) throw new Error(`status ${r.status}`);
    throw new Error(((await r.json()) as { error: string }).error);
  }), /srcip: "999.1.1.1" is not an IPv4 or IPv6 address/);
});
