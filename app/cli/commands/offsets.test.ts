// `flowagg offsets` on the embedded log: list, dry run, resets, refusal while the group has members,
// and command-line mistakes. The Kafka side is in offsets.functional.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isFlowaggError } from '../../../lib/errors.js';
import { LOG_GROUP_ACTIVE } from '../../../lib/log/errors.js';
import { openEmbeddedLog } from '../../../lib/log/embedded/index.js';
import type { MessageLog } from '../../../lib/log/types.js';
import { type ParsedArgs, UsageError, parseCommandArgs } from '../command.js';
import { runMain } from '../testing/run-main.js';
import { logConfigFromArgs, offsetsCommand, runOffsets } from './offsets.js';

const TOPIC = 'flows.raw';
const GROUP = 'exporter-flowlog';
let dir: string;

const args = (...argv: string[]): ParsedArgs => parseCommandArgs(offsetsCommand, argv);

async function offsets(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runOffsets(args(...argv, '--log-dir', dir), (text) => (out += text));
  return { code, out };
}

async function committed(): Promise<number[]> {
  const { out } = await offsets('list', '--group', GROUP, '--json');
  const doc = JSON.parse(out) as { groups: { partitions: { partition: number; committed: number | null }[] }[] };
  return doc.groups[0]!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.committed ?? -1);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flowagg-offsets-'));
  const log = await openEmbeddedLog({ dir });
  await log.admin().createTopics([{ topic: TOPIC, partitions: 2 }]);
  const t0 = Date.parse('2026-11-29T10:00:00Z');
  await log.producer().send(
    TOPIC,
    Array.from({ length: 20 }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`), partition: i % 2, timestamp: t0 + i * 60_000 })),
  );
  const tp = log.transactionalProducer('setup');
  const txn = await tp.begin();
  await txn.sendOffsets(GROUP, [
    { topic: TOPIC, partition: 0, offset: 10 },
    { topic: TOPIC, partition: 1, offset: 8 },
  ]);
  await txn.commit();
  await tp.close();
  await log.close();
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('list shows each group partition with committed offset, log end and lag', async () => {
  const { code, out } = await offsets('list');
  assert.equal(code, 0);
  const lines = out.trim().split('\n');
  assert.match(lines[0]!, /^GROUP\s+STATE\s+MEMBERS\s+TOPIC\s+PARTITION\s+COMMITTED\s+END\s+LAG$/);
  const rows = lines.slice(1).map((l) => l.split(/\s+/)).filter((r) => r[0] === GROUP);
  assert.deepEqual(
    rows.map((r) => r.slice(3)),
    [
      [TOPIC, '0', '10', '10', '0'],
      [TOPIC, '1', '8', '10', '2'],
    ],
  );
});

test('a dry run prints the new offsets and changes nothing', async () => {
  const { code, out } = await offsets('reset', '--group', GROUP, '--topic', TOPIC, '--to-earliest', '--dry-run');
  assert.equal(code, 0);
  assert.match(out, /dry run: nothing changed/);
  const rows = out.trim().split('\n').slice(1, 3).map((l) => l.split(/\s+/).slice(2));
  assert.deepEqual(rows, [
    ['0', '10', '0'],
    ['1', '8', '0'],
  ]);
  assert.deepEqual(await committed(), [10, 8]);
});

test('resets move the group: by shift, to a time, to an offset, to the end', async () => {
  await offsets('reset', '--group', GROUP, '--topic', TOPIC, '--shift-by=-3');
  assert.deepEqual(await committed(), [7, 5]);
  // Records are one minute apart, alternating partitions: 10:05 is record 5, the 3rd of partition 1.
  await offsets('reset', '--group', GROUP, '--topic', TOPIC, '--to-datetime', '2026-11-29T10:05:00Z');
  assert.deepEqual(await committed(), [3, 2]);
  await offsets('reset', '--group', GROUP, '--topic', TOPIC, '--to-offset', '1000');
  assert.deepEqual(await committed(), [10, 10], 'clamped to the log end');
  const { out } = await offsets('reset', '--group', GROUP, '--topic', TOPIC, '--to-latest', '--json');
  assert.deepEqual(JSON.parse(out), {
    groupId: GROUP,
    topic: TOPIC,
    dryRun: false,
    partitions: [
      { topic: TOPIC, partition: 0, previous: 10, offset: 10 },
      { topic: TOPIC, partition: 1, previous: 10, offset: 10 },
    ],
  });
});

test('a reset is refused while the group has an active member', async () => {
  const log = await openEmbeddedLog({ dir });
  try {
    const consumer = log.consumer({ groupId: GROUP });
    await consumer.subscribe([TOPIC]);
    await consumer.run({ eachBatch: async () => {} });
    // The command gets the log this process has open, with the member; its close must not close it.
    const shared = { backend: log.backend, admin: () => log.admin(), close: async () => {} } as unknown as MessageLog;
    await assert.rejects(
      runOffsets(args('reset', '--group', GROUP, '--topic', TOPIC, '--to-earliest', '--log-dir', dir), () => {}, async () => shared),
      (err: unknown) => isFlowaggError(err, LOG_GROUP_ACTIVE) && /active member/.test(err.message),
    );
    await consumer.stop();
  } finally {
    await log.close();
  }
});

test('command-line mistakes are usage errors that say what is wrong', async () => {
  const usage = async (re: RegExp, ...argv: string[]) =>
    assert.rejects(runOffsets(args(...argv), () => {}, () => assert.fail('no log is opened for a bad command line')), (err: unknown) => err instanceof UsageError && re.test(err.message));
  await usage(/exactly one of --to-earliest/, 'reset', '--group', 'g', '--topic', 't');
  await usage(/got --to-earliest and --to-latest/, 'reset', '--group', 'g', '--topic', 't', '--to-earliest', '--to-latest');
  await usage(/--to-datetime needs an ISO 8601/, 'reset', '--group', 'g', '--topic', 't', '--to-datetime', 'yesterday');
  await usage(/--to-offset needs a non-negative integer/, 'reset', '--group', 'g', '--topic', 't', '--to-offset=-1');
  await usage(/--group is required/, 'reset', '--topic', 't', '--to-latest');
  await usage(/give a subcommand/);
  await usage(/unknown subcommand "show"/, 'show');
  await usage(/--to-latest belongs to reset/, 'list', '--to-latest');
  await usage(/two different logs/, 'list', '--log-dir', '/x', '--brokers', 'h:9092');
});

test('the log comes from --config, and --log-dir or --brokers override it', async () => {
  const file = join(dir, 'flowagg.yaml');
  await writeFile(file, 'log:\n  backend: kafka\n  kafka:\n    brokers: [k1:9092, k2:9092]\n    compression: gzip\ningest:\n  udpPort: 4739\n');
  const fromFile = logConfigFromArgs(args('list', '--config', file), {});
  assert.equal(fromFile.backend, 'kafka');
  assert.deepEqual(fromFile.kafka?.brokers, ['k1:9092', 'k2:9092']);
  const brokers = logConfigFromArgs(args('list', '--config', file, '--brokers', 'k3:9093'), {});
  assert.deepEqual(brokers.kafka?.brokers, ['k3:9093']);
  assert.equal(brokers.kafka?.compression, 'gzip', 'the rest of log.kafka still comes from the file');
  const embedded = logConfigFromArgs(args('list', '--config', file, '--log-dir', '/var/lib/flowagg'), {});
  assert.equal(embedded.backend, 'embedded');
  assert.equal(embedded.embedded.dir, '/var/lib/flowagg');
});

test('flowagg offsets --help prints the usage of both subcommands', async () => {
  const { code, stdout: printed } = await runMain(['offsets', 'reset', '--help']);
  assert.equal(code, 0);
  assert.match(printed, /flowagg offsets list/);
  assert.match(printed, /--shift-by N/);
  assert.match(printed, /--brokers/);
});
