// The IPFIX exporter as its own process, for the crash test: the runner on an embedded log directory
// exporting to a TCP collector. Prints "started" once running, and "redelivered N" (the running total)
// every time the runner counts records it delivers again; stdout is a pipe, written synchronously, so a
// line is out before the records it announces reach the collector. SIGTERM stops it cleanly.
import { openEmbeddedLog } from '../../../lib/log/embedded/index.js';
import { topicsSchema } from '../../../lib/log/topics.js';
import { exportMetrics } from '../../../exporters/metrics.js';
import { createExportRunner } from '../../../exporters/runner.js';
import { ipfixExporter } from '../../../exporters/ipfix/testing/exporter.js';

const [dir, port] = process.argv.slice(2) as [string, string];
// prom-client binds a labelled child's inc to the counter's inc when the child is made (at assignment,
// after this line), so patching the counter sees every increment.
const counter = exportMetrics.redelivered;
const inc = counter.inc.bind(counter) as (labels: unknown, n?: number) => void;
let total = 0;
counter.inc = ((labels: unknown, n?: number) => {
  total += typeof labels === 'number' ? labels : (n ?? 1);
  process.stdout.write(`redelivered ${total}\n`);
  inc(labels, n);
}) as typeof counter.inc;

const log = await openEmbeddedLog({ dir, fsync: { policy: 'always' } });
const runner = createExportRunner(
  { topics: topicsSchema.parse({ flowsProcessedPartitions: 2 }), backoff: { initialMs: 100, maxMs: 1000 } },
  { log, exporter: ipfixExporter({ address: `127.0.0.1:${port}:tcp`, batchRecords: 500, batchDelay: 50 }) },
);
await runner.start();
process.stdout.write('started\n');
process.once('SIGTERM', () => {
  void runner.stop().then(() => log.close()).then(() => process.exit(0));
});
