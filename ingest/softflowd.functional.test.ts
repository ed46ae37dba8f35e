// softflowd → ingest → flows.raw on a real Kafka broker (KAFKA_BROKERS; `npm test` starts one): the same
// checks as softflowd.test.ts, through the Kafka backend, over UDP and TCP.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { sortRecords } from '../integration-tests/harness/flow-view.js';
import { kafkaBrokersForTests } from '../integration-tests/harness/kafka.js';
import { requireTools, SOFTFLOWD } from '../integration-tests/harness/tools.js';
import { logConfigSchema } from '../lib/log/config.js';
import { openLog } from '../lib/log/index.js';
import { ingestConfig } from './config.js';
import { createIngest } from './index.js';
import { softflowdIntoIngest, softflowdView } from './testing/fakes.js';

for (const transport of ['udp', 'tcp'] as const) {
  test(`Kafka: softflowd over ${transport} into ingest, every record in flows.raw with its values`, async (t) => {
    const kafka = kafkaBrokersForTests();
    if (kafka.skip) return t.skip(kafka.skip);
    if (!requireTools(t, SOFTFLOWD)) return;
    const log = await openLog(logConfigSchema.parse({ backend: 'kafka', kafka: { brokers: kafka.brokers } }));
    t.after(() => log.close());
    const run = randomUUID().slice(0, 8);
    const topics = { flowsRaw: `flows.raw.ingest-test-${run}`, templates: `ipfix.templates.ingest-test-${run}`, flowsRawPartitions: 3 };
    const ingest = createIngest(ingestConfig.parse({ aggregatorTransportProtocol: transport, ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false } }, log: { topics } }), { log });
    await ingest.start();
    t.after(() => ingest.stop());
    const { run: softflowd, expected, records } = await softflowdIntoIngest(log, ingest.ports[transport]!, {
      transport, timeFormat: 'milli', conversations: 200, written: () => ingest.stats().written, topic: topics.flowsRaw, signal: t.signal,
    });
    assert.equal(softflowd.stats.sendFailures, 0);
    assert.equal(records.length, softflowd.stats.recordsExported);
    assert.deepEqual(sortRecords(records.map(softflowdView)), sortRecords(expected));
    assert.equal(ingest.stats().decodeErrors, 0);
  });
}
