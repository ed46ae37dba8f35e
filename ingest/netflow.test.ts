// softflowd (an independent exporter) sending NetFlow v9 and v5, and IPFIX, to ingest's NetFlow port: every
// flow softflowd says it exported is in flows.raw with the counters of the traffic, times made absolute from
// the packet header, transport and exporter as they arrived, and no false sequence gap.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sortRecords } from '../integration-tests/harness/flow-view.js';
import type { ExpectedRecord } from '../integration-tests/harness/softflowd-flows.js';
import { requireTools, SOFTFLOWD } from '../integration-tests/harness/tools.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { ingestConfig } from './config.js';
import { createIngest } from './index.js';
import { softflowdIntoIngest, softflowdView } from './testing/fakes.js';

/** v9's header gives unix time in whole seconds, so its boot time (and every flow time) may be up to 1 s early. */
function withinHeaderSecond(actualUs: number, expectedUs: number): boolean {
  return actualUs <= expectedUs && actualUs > expectedUs - 1_000_000;
}

const untimed = (r: ExpectedRecord) => ({ ...r, startUs: 0, endUs: 0 });

const CASES = [
  { version: 9, timeFormat: 'sysUpTime', source: 'sysUpTime' },
  { version: 9, timeFormat: 'milli', source: 'milliseconds' },
  { version: 5, timeFormat: 'sysUpTime', source: 'sysUpTime' },
  { version: 10, timeFormat: 'milli', source: 'milliseconds' },
] as const;

for (const { version, timeFormat, source } of CASES) {
  test(`softflowd -v ${version} (${timeFormat} times) to the NetFlow port: every exported flow reaches flows.raw with its counters and times`, async (t) => {
    if (!requireTools(t, SOFTFLOWD)) return;
    const log = await openEmbeddedLog({ dir: mkdtempSync(join(tmpdir(), 'flowagg-netflow-')), fsync: { policy: 'interval' } });
    t.after(() => log.close());
    const ingest = createIngest(ingestConfig.parse({ aggregatorTransportProtocol: 'none', ingest: { host: '127.0.0.1', netflow: { enabled: true, port: 0 }, grpc: { enabled: false } } }), { log });
    await ingest.start();
    t.after(() => ingest.stop());
    const { run, expected, records } = await softflowdIntoIngest(log, ingest.ports.netflow!, {
      transport: 'udp', timeFormat, conversations: 300, written: () => ingest.stats().written, signal: t.signal, version,
    });
    assert.equal(run.stats.sendFailures, 0);
    assert.ok(run.stats.messagesSent > 1, 'several export packets');
    assert.equal(records.length, run.stats.recordsExported);
    assert.equal(records.length, expected.length);
    // v5 has no IP version field.
    const views = records.map((r) => ({ ...softflowdView(r), ...(version === 5 && { ipVersion: r.ipVersion ?? 4 }) })) as ExpectedRecord[];
    if (version === 9 && timeFormat === 'sysUpTime') {
      assert.deepEqual(sortRecords(views.map(untimed)), sortRecords(expected.map(untimed)));
      const byKey = new Map(expected.map((e) => [JSON.stringify(untimed(e)), e]));
      for (const v of views) {
        const e = byKey.get(JSON.stringify(untimed(v)))!;
        assert.ok(withinHeaderSecond(v.startUs, e.startUs) && withinHeaderSecond(v.endUs, e.endUs), `times ${v.startUs}..${v.endUs} vs traffic ${e.startUs}..${e.endUs}`);
        assert.equal(e.startUs - v.startUs, e.endUs - v.endUs, 'one boot time for start and end');
      }
    } else {
      assert.deepEqual(sortRecords(views), sortRecords(expected));
    }
    const transport = version === 10 ? 'udp' : `netflow_v${version}`;
    assert.deepEqual([...new Set(records.map((r) => `${r.transport} ${r.exporterAddress} ${r.exporterPort > 0}`))], [`${transport} 127.0.0.1 true`]);
    assert.deepEqual([...new Set(records.map((r) => `${r.flowStartSource} ${r.flowEndSource}`))], [`${source} ${source}`]);
    if (version === 5) assert.ok(records.every((r) => r.ipVersion === null));
    assert.equal(ingest.stats().decodeErrors, 0);
    assert.equal(ingest.stats().lostInTransit, 0, 'no false gaps');
    assert.equal(ingest.stats().lostPacketsInTransit, 0, 'no false gaps');
  });
}
