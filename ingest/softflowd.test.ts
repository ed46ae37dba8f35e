// softflowd (a real, independent IPFIX exporter) into a running ingest on the embedded log, over UDP and
// over TCP: every record softflowd says it exported is in flows.raw, with the values of the traffic.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sortRecords } from '../integration-tests/harness/flow-view.js';
import { requireTools, SOFTFLOWD } from '../integration-tests/harness/tools.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { ingestConfig } from './config.js';
import { createIngest } from './index.js';
import { softflowdIntoIngest, softflowdView } from './testing/fakes.js';

for (const c of [{ transport: 'udp', timeFormat: 'milli' }, { transport: 'tcp', timeFormat: 'sysUpTime' }] as const) {
  test(`softflowd over ${c.transport} (${c.timeFormat} times): every exported record reaches flows.raw with its values`, async (t) => {
    if (!requireTools(t, SOFTFLOWD)) return;
    const log = await openEmbeddedLog({ dir: mkdtempSync(join(tmpdir(), 'flowagg-ingest-softflowd-')), fsync: { policy: 'interval' } });
    t.after(() => log.close());
    const ingest = createIngest(ingestConfig.parse({ aggregatorTransportProtocol: c.transport, ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false } } }), { log });
    await ingest.start();
    t.after(() => ingest.stop());
    const { run, expected, records } = await softflowdIntoIngest(log, ingest.ports[c.transport]!, {
      ...c, conversations: 300, written: () => ingest.stats().written, signal: t.signal,
    });
    assert.equal(run.stats.sendFailures, 0);
    assert.ok(run.stats.messagesSent > 1, 'several export messages');
    assert.equal(records.length, run.stats.recordsExported);
    assert.deepEqual(sortRecords(records.map(softflowdView)), sortRecords(expected));
    assert.ok(records.every((r) => r.transport === c.transport && r.exporterAddress === '127.0.0.1'));
    assert.equal(ingest.stats().decodeErrors, 0);
    assert.equal(ingest.stats().lostInTransit, 0, 'no false gaps from softflowd\'s sequence numbering');
  });
}
