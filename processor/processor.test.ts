// The processor service on the embedded log: transactions, restore on restart, proxy mode.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { readAll } from '../lib/log/embedded/testing/read-all.js';
import type { MessageLog } from '../lib/log/types.js';
import { processorConfig, type ProcessorConfig } from './config.js';
import { createProcessor, type Processor } from './index.js';
import { decodeOutput, produceSpecs, type RecordSpec, waitCaughtUp } from './testing/fakes.js';
import { ManualClock } from '../lib/testing/manual-clock.js';
import { until } from '../lib/testing/until.js';

function config(overrides: Record<string, unknown> = {}): ProcessorConfig {
  return processorConfig.parse({
    processor: { commitInterval: 20, ...(overrides.processor as object) },
    log: { topics: { flowsRawPartitions: 2, flowsProcessedPartitions: 2 } },
    ...Object.fromEntries(Object.entries(overrides).filter(([k]) => k !== 'processor')),
  });
}

async function openLog(t: TestContext, dir = mkdtempSync(join(tmpdir(), 'flowagg-processor-'))): Promise<MessageLog> {
  const log = await openEmbeddedLog({ dir, fsync: { policy: 'interval' } });
  t.after(() => log.close());
  await log.admin().createTopics([{ topic: 'flows.raw', partitions: 2 }]);
  return log;
}

async function startProcessor(t: TestContext, log: MessageLog, cfg: ProcessorConfig): Promise<Processor> {
  const p = createProcessor(cfg, { log });
  await p.start();
  t.after(() => p.stop());
  return p;
}

const tuple = { src: '10.10.1.5', dst: '10.10.2.7', dport: 80, proto: 6 } as const;

/** Many flows of every kind, records interleaved over six minutes of event time. */
function workload(rounds = 24, flows = 60): RecordSpec[] {
  const out: RecordSpec[] = [];
  for (let round = 0; round < rounds; round++) {
    for (let f = 0; f < flows; f++) {
      const t = 1000 + round * 15 + (f % 7);
      const base = { ...tuple, sport: 30000 + f, start: 990, end: t, exportTime: t, packetDeltaCount: 10, octetDeltaCount: 1000 };
      const src = { ...base, flowType: 2, sourcePodName: `c${f}`, sourcePodNamespace: 'ns', destinationPodName: '', packetTotalCount: round * 10 + 1, octetTotalCount: round * 1000 + 1 };
      const dst = { ...base, end: t + 1, exportTime: t + 1, flowType: 2, sourcePodName: '', destinationPodName: `s${f}`, packetTotalCount: round * 10 + 2, octetTotalCount: round * 1000 + 2 };
      if (f % 3 === 0) out.push({ ...base, flowType: 1, sourcePodName: 'a', destinationPodName: 'b', packetTotalCount: round * 10, octetTotalCount: round * 999 });
      else if (f % 3 === 1) out.push(src, dst);
      else out.push(round < 10 ? src : dst);
    }
  }
  return out;
}

const outputsOf = async (log: MessageLog, topic = 'flows.processed') => (await readAll(log, topic)).map((r) => r.value!.toString('hex')).sort();

describe('processor on the embedded log', () => {
  test('aggregate mode: outputs, changelog and input offsets commit together; a restart restores the state and the outputs equal an uninterrupted run\'s', async (t) => {
    const specs = workload();
    const cfg = config();
    const straightLog = await openLog(t);
    await produceSpecs(straightLog, 'flows.raw', specs);
    const straight = await startProcessor(t, straightLog, cfg);
    await waitCaughtUp(straightLog, cfg.processor.groupId, 'flows.raw');
    const expected = await outputsOf(straightLog);
    assert.ok(expected.length > 60, `outputs: ${expected.length}`);
    assert.ok(straight.stats().flows > 0);

    const log = await openLog(t);
    const cut = Math.floor(specs.length * 0.45);
    await produceSpecs(log, 'flows.raw', specs.slice(0, cut));
    const first = createProcessor(cfg, { log });
    await first.start();
    await waitCaughtUp(log, cfg.processor.groupId, 'flows.raw');
    await first.stop();
    const reader = log.reader();
    const changelog = await reader.fetch({ topic: 'processor.state', partition: 0 }, 0);
    await reader.close();
    assert.ok(changelog.records.length > 0, 'the state is in processor.state');
    await produceSpecs(log, 'flows.raw', specs.slice(cut));
    const second = await startProcessor(t, log, cfg);
    await waitCaughtUp(log, cfg.processor.groupId, 'flows.raw');
    assert.deepEqual(await outputsOf(log), expected);
    assert.equal(second.stats().flows, straight.stats().flows);
  });

  test('proxy mode: every record forwarded once with the proxy elements, in transactions', async (t) => {
    const specs = workload(3, 20);
    const cfg = config({ mode: 'Proxy' });
    const log = await openLog(t);
    await produceSpecs(log, 'flows.raw', specs);
    await startProcessor(t, log, cfg);
    await waitCaughtUp(log, cfg.processor.groupId, 'flows.raw');
    const outputs = (await readAll(log, 'flows.processed')).map((r) => decodeOutput(r.value!));
    assert.equal(outputs.length, specs.length);
    assert.ok(outputs.every((o) => o.originalObservationDomainId === 1 && o.flowDirection !== null));
    assert.equal(outputs.filter((o) => o.flowDirection === 1).length, specs.filter((s) => s.flowType === 2 && s.sourcePodName !== '').length);
  });

  test('proxy mode commits what it took once commitInterval passed on its clock, not before', async (t) => {
    const specs = workload(1, 12);
    const cfg = config({ mode: 'Proxy', processor: { commitInterval: '1m' } });
    const log = await openLog(t);
    const clock = new ManualClock();
    const p = createProcessor(cfg, { log, clock });
    await p.start();
    t.after(() => p.stop());
    await produceSpecs(log, 'flows.raw', specs);
    await until('the processor to take every record', () => p.stats().records === specs.length);
    // Ticks run every 500 ms of the clock; until a minute has passed since the assignment, none commits.
    clock.advance(59_000);
    assert.equal(p.stats().outputs, 0, 'nothing committed before commitInterval');
    clock.advance(1000);
    await until('the commit at commitInterval', () => p.stats().outputs === specs.length);
    await waitCaughtUp(log, cfg.processor.groupId, 'flows.raw');
  });
});
