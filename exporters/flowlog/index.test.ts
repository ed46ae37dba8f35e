import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { batchOf } from '../testing/records.js';
import { flowLoggerSection } from './config.js';
import { createFlowLogExporter } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'flowagg-flowlog-exporter-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const signal = new AbortController().signal;


describe('flow log exporter', () => {
  it('writes one CSV line per record that passes the filters, and each batch once', async () => {
    const path = join(dir, 'a', 'flows.log');
    const config = flowLoggerSection.parse({ path, filters: [{ ingressNetworkPolicyRuleActions: ['Allow'] }] });
    const exporter = createFlowLogExporter(config);
    await exporter.start();
    await exporter.deliver(batchOf(0, 0, 70), signal);
    await exporter.deliver(batchOf(1, 0, 70), signal);
    await exporter.deliver(batchOf(0, 0, 70), signal); // a redelivery: nothing twice
    await exporter.stop();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 2 * 60); // every seventh record is denied at ingress
    assert.ok(lines.every((l) => l.split(',')[20] === 'Allow'));
    assert.equal(lines[0]!.split(',')[7], 'client-0');
  });

  it('skips a value that is not a FlowRecord, tells the batch, and writes the others', async () => {
    const path = join(dir, 'unreadable', 'flows.log');
    const exporter = createFlowLogExporter(flowLoggerSection.parse({ path }));
    await exporter.start();
    const good = batchOf(0, 0, 3);
    const told: number[] = [];
    const records = [good.records[0]!, { offset: 1, value: Buffer.from('not avro') }, good.records[2]!];
    await exporter.deliver({ ...good, records, unreadable: (r) => told.push(r.offset) }, signal);
    await exporter.stop();
    assert.deepEqual(readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => l.split(',')[7]), ['client-0', 'client-2']);
    assert.deepEqual(told, [1]);
  });

  it('fails at start, naming flowLogger.path, when the file cannot be opened', async () => {
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const exporter = createFlowLogExporter(flowLoggerSection.parse({ path: join(blocker, 'flows.log') }));
    await assert.rejects(exporter.start(), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_FLOWLOG_IO') && /flowLogger\.path/.test(err.message));
  });

  it('writes JSON lines with the keys flowagg pipeline prints, filters applied', async () => {
    const path = join(dir, 'json', 'flows.log');
    const exporter = createFlowLogExporter(flowLoggerSection.parse({ path, recordFormat: 'json', filters: [{ ingressNetworkPolicyRuleActions: ['Reject'] }] }));
    await exporter.start();
    await exporter.deliver(batchOf(0, 0, 70), signal);
    await exporter.stop();
    const objects = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(objects.length, 10); // every seventh record is denied at ingress
    assert.equal(objects[0]!.sourceIPv4Address, '10.1.0.3');
    assert.equal(objects[0]!.ingressNetworkPolicyRuleAction, 3);
    assert.equal(objects[0]!.sourcePodName, 'client-3');
    assert.equal(objects[0]!.octetDeltaCount, 3);
  });
});
