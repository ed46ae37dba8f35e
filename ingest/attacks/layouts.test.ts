// Attack tests for findings 7 and 8 of issue 11: data in a layout the collector does not know yet (a template
// redefinition that reached another replica first) is skipped whole and counted, never written as garbage;
// data for unknown templates is counted as sets and bytes. (A set whose bytes happen to be a whole number of
// old-layout records plus a zero tail cannot be told from a good one: docs/ingest.md says so.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireTools, SOFTFLOWD } from '../../integration-tests/harness/tools.js';
import { assertUnharmed, finish, metricValue, paced, softflowd, startProbe, startTarget, udpFrom } from './testing/harness.js';
import { dataSet, type Field, message, templateSet } from './testing/messages.js';

// Finding 7's layouts: 29 bytes (addresses, ports, protocol, octets, start ms) and 22 bytes (addresses, ports,
// protocol, interfaces, class of service).
const OLD: Field[] = [[8, 4], [12, 4], [7, 2], [11, 2], [4, 1], [1, 8], [152, 8]];
const NEW: Field[] = [[8, 4], [12, 4], [7, 2], [11, 2], [4, 1], [10, 4], [14, 4], [5, 1]];

function records(layout: Field[], n: number, octets: number): Buffer {
  return Buffer.concat(Array.from({ length: n }, (_, i) => {
    const b = Buffer.alloc(layout.reduce((s, [, len]) => s + len, 0));
    b.writeUInt32BE(0x0a000001 + i, 0);
    b.writeUInt32BE(0x0a000101, 4);
    b.writeUInt16BE(1000 + i, 8);
    b.writeUInt16BE(80, 10);
    b[12] = 6;
    if (layout === OLD) b.writeBigUInt64BE(BigInt(octets), 13);
    else b.set([0, 0, 0, 3, 0, 0, 0, 4, 0x28], 13); // interfaces 3 and 4, DSCP AF11
    return b;
  }));
}

test('findings 7 and 8: data in a layout not known here is skipped and counted, never written; unknown templates count as sets and bytes', { timeout: 300_000 }, async (t) => {
  if (!requireTools(t, SOFTFLOWD)) return;
  const target = await startTarget(t, { aggregatorTransportProtocol: ['udp'] });
  const probe = await startProbe(t, target.http);
  const redefined = await udpFrom('127.0.0.2');
  const unknown = await udpFrom('127.0.0.3');
  t.after(() => {
    redefined.close();
    unknown.close();
  });
  await redefined.sendTo(target.ports.udp!, message(1, 0, [templateSet([[256, OLD]]), dataSet(256, records(OLD, 3, 777))]));
  // 200 datagrams of 12 records in the new 22-byte layout, the redefinition having gone elsewhere; then 200
  // datagrams of 10 records for a template never defined.
  const [good] = await Promise.all([
    softflowd(target.ports.udp!, 'udp'),
    paced(200, 200, (i) => redefined.sendTo(target.ports.udp!, message(1, 3 + i * 12, [dataSet(256, records(NEW, 12, 0))]))),
    paced(200, 200, (i) => unknown.sendTo(target.ports.udp!, message(1, i * 10, [dataSet(300, records(NEW, 10, 0))]))),
  ]);
  const outcome = await finish(target, probe);
  assertUnharmed(outcome, good, 'udp', 300);
  const written = outcome.records.filter((r) => r.exporterAddress === '127.0.0.2');
  assert.equal(written.length, 3, 'only the records of the layout the collector knew');
  assert.ok(written.every((r) => r.octetDeltaCount === 777 && r.protocolIdentifier === 6));
  assert.equal(outcome.records.filter((r) => r.exporterAddress === '127.0.0.3').length, 0);
  const m = (name: string, labels: Record<string, string>) => metricValue(outcome.metrics, `flowagg_ingest_${name}`, labels);
  assert.equal(m('skipped_sets_total', { exporter: '127.0.0.2', reason: 'FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH' }), 200);
  assert.equal(m('skipped_bytes_total', { exporter: '127.0.0.2', reason: 'FLOWAGG_ERR_IPFIX_LAYOUT_MISMATCH' }), 200 * (4 + 12 * 22));
  assert.equal(m('skipped_sets_total', { reason: 'FLOWAGG_ERR_IPFIX_UNKNOWN_TEMPLATE' }), 200);
  assert.equal(m('skipped_bytes_total', { reason: 'FLOWAGG_ERR_IPFIX_UNKNOWN_TEMPLATE' }), 200 * (4 + 10 * 22));
  assert.equal(outcome.recordMetrics.numSetsSkipped, 400);
  assert.equal(outcome.recordMetrics.numBytesSkipped, 200 * (4 + 12 * 22) + 200 * (4 + 10 * 22));
});
