// /recordmetrics with two exporters in the process: numRecordsExported counts each record once, as
// Antrea does, and is the processor's Prometheus counter (each exporter's is on /metrics). Its own file:
// the counters are the process's, and another flowagg run in the same process would add to them.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ApiTarget, apiRequest } from '../lib/apiserver/client.js';
import { until } from '../lib/testing/until.js';
import { sendAgentRecords, startRun } from './cli/testing/run-in-process.js';

test('numRecordsExported counts each record once, however many exporters send it, from the Prometheus counters', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-run-'));
  const collector = createSocket('udp4');
  await new Promise<void>((resolve) => collector.bind(0, '127.0.0.1', resolve));
  t.after(() => collector.close());
  const { ports } = await startRun(t, dir, [
    'apiServer:', '  protocol: http',
    'flowLogger:', '  enable: true', `  path: ${join(dir, 'flows.log')}`, '  recordFormat: JSON',
    'flowCollector:', '  enable: true', `  address: 127.0.0.1:${collector.address().port}:udp`,
  ].join('\n') + '\n');
  const { socket } = await sendAgentRecords(ports.collectors.tcp!);
  t.after(() => void socket.end());
  const api: ApiTarget = { url: `http://127.0.0.1:${ports.http}` };
  const counter = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  const seen = await until('both exporters to deliver what the processor wrote', async () => {
    const text = (await apiRequest(api, '/metrics')).text;
    const outputs = counter(text, 'flowagg_processor_output_records_total{mode="aggregate"}');
    const flowlog = counter(text, 'flowagg_export_records_total{exporter="flowlog"}');
    const ipfix = counter(text, 'flowagg_export_records_total{exporter="ipfix"}');
    return outputs > 0 && flowlog === outputs && ipfix === outputs ? outputs : undefined;
  });
  const metrics = (await apiRequest(api, '/recordmetrics')).json as Record<string, unknown>;
  assert.equal(metrics.numRecordsExported, seen, `once per record, not ${2 * seen} for two exporters`);
  assert.deepEqual([metrics.withLogExporter, metrics.withIPFIXExporter, metrics.withClickHouseExporter], [true, true, false]);
});
