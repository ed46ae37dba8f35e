// `flowagg offsets list|reset`: consumer groups with their committed offsets and lag, and offset resets
// for replay, on either log backend. A reset is refused while the group has members, as
// kafka-consumer-groups refuses it: a running consumer would overwrite the new offsets with its own.
import { z } from 'zod';
import { type ConfigDiagnostic, formatDiagnostic, loadConfig } from '../../../lib/config/load.js';
import { logConfigSchema, type LogConfig } from '../../../lib/log/config.js';
import { openLog } from '../../../lib/log/index.js';
import { openLogAdmin } from '../../../lib/log/open-admin.js';
import { resolveReset } from '../../../lib/log/offset-reset.js';
import type { Admin, GroupDescription, GroupPartitionLag, MessageLog, OffsetResetSpec } from '../../../lib/log/types.js';
import { type Command, OUTPUT_OPTION, type ParsedArgs, UsageError, outputFormat, stringOption } from '../command.js';
import { formatTable } from '../../../lib/table.js';

const USAGE = `Usage: flowagg offsets list [--group G] [-o table|json] [connection options]
       flowagg offsets reset --group G --topic T <target> [--dry-run] [-o table|json] [connection options]

Lists consumer groups with their committed offsets and lag, or moves a group's committed offsets on a
topic to replay records (or to skip them). A reset is refused while the group has active members: stop
its consumers first. While a flowagg process holds the embedded log (flowagg run), the command goes
through that process's HTTP API (found in the log directory's .api.json), as antctl talks to Antrea's.

list:
  --group G            only this group
  -o, --output F       table (default) or json; --json is the same as -o json

reset (every partition of the topic moves):
  --group G            the consumer group (required)
  --topic T            the topic (required)
  --to-earliest        to the first offset still in the log: replay everything
  --to-latest          to the log end: skip everything not read yet
  --to-datetime ISO    to the first record at or after this time, e.g. 2026-11-29T10:00:00Z
  --to-offset N        to offset N (clamped to the offsets the log still holds)
  --shift-by N         N records from the committed offset; replay with a negative N: --shift-by=-1000
  --dry-run            show the new offsets without changing anything
  -o, --output F       table (default) or json

connection (default: the log section of --config, else the embedded log in ./data/log):
  --config FILE        flowagg's YAML configuration; its log section says which log and how to reach it
  --log-dir DIR        the embedded log in DIR
  --brokers H:P,...    Kafka at these brokers (TLS and SASL settings come from --config's log.kafka)
`;

const TARGETS = ['to-earliest', 'to-latest', 'to-datetime', 'to-offset', 'shift-by'] as const;

/** Only the log section is read; the rest of the file belongs to the services. */
const cliConfigSchema = z.looseObject({ log: logConfigSchema.prefault({}) });

export function logConfigFromArgs(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): LogConfig {
  const logDir = stringOption(args, 'log-dir');
  const brokers = stringOption(args, 'brokers');
  if (logDir !== undefined && brokers !== undefined) throw new UsageError('--log-dir and --brokers name two different logs: give one');
  const overrides: Record<string, unknown> = {};
  if (logDir !== undefined) Object.assign(overrides, { 'log.backend': 'embedded', 'log.embedded.dir': logDir });
  if (brokers !== undefined) Object.assign(overrides, { 'log.backend': 'kafka', 'log.kafka.brokers': brokers });
  // Overrides of the other sections would name keys this schema does not know.
  const logEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('FLOWAGG_CFG_LOG_')));
  const file = stringOption(args, 'config');
  const report = (d: ConfigDiagnostic) => void process.stderr.write(`${formatDiagnostic(d)}\n`);
  return loadConfig(cliConfigSchema, { ...(file === undefined ? {} : { file }), env: logEnv, overrides, report }).log;
}

function integer(args: ParsedArgs, name: string, min?: number): number {
  const text = stringOption(args, name)!;
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || (min !== undefined && n < min)) {
    throw new UsageError(`--${name} needs ${min === 0 ? 'a non-negative' : 'an'} integer, got "${text}"`);
  }
  return n;
}

export function resetSpecFromArgs(args: ParsedArgs): OffsetResetSpec {
  const given = TARGETS.filter((t) => args.values[t] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(`give exactly one of ${TARGETS.map((t) => `--${t}`).join(', ')}${given.length > 1 ? ` (got ${given.map((t) => `--${t}`).join(' and ')})` : ''}`);
  }
  switch (given[0]!) {
    case 'to-earliest':
      return { to: 'earliest' };
    case 'to-latest':
      return { to: 'latest' };
    case 'to-offset':
      return { to: 'offset', offset: integer(args, 'to-offset', 0) };
    case 'shift-by':
      return { shiftBy: integer(args, 'shift-by') };
    case 'to-datetime': {
      const text = stringOption(args, 'to-datetime')!;
      const timestamp = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
      if (Number.isNaN(timestamp)) throw new UsageError(`--to-datetime needs an ISO 8601 date and time such as 2026-11-29T10:00:00Z, got "${text}"`);
      return { to: 'datetime', timestamp };
    }
  }
}

function required(args: ParsedArgs, name: string): string {
  const v = stringOption(args, name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

interface GroupLag extends GroupDescription {
  readonly partitions: GroupPartitionLag[];
}

async function listOffsets(admin: Admin, args: ParsedArgs, out: (text: string) => void): Promise<number> {
  const only = stringOption(args, 'group');
  const described = (await admin.listGroups()).filter((g) => only === undefined || g.groupId === only);
  // A group that only has committed offsets (no member ever joined here) may not be listed; its lag is still known.
  if (only !== undefined && described.length === 0) described.push({ groupId: only, state: 'empty', members: 0 });
  const groups: GroupLag[] = [];
  for (const g of described) groups.push({ ...g, partitions: await admin.fetchGroupLag(g.groupId) });
  if (only !== undefined && groups[0]!.partitions.length === 0 && groups[0]!.members === 0) {
    process.stderr.write(`flowagg offsets: consumer group ${only} does not exist (no members, no committed offsets)\n`);
    return 1;
  }
  if (outputFormat(args, ['table', 'json']) === 'json') {
    out(`${JSON.stringify({ groups }, null, 2)}\n`);
    return 0;
  }
  if (groups.length === 0) {
    out('no consumer groups\n');
    return 0;
  }
  const rows = groups.flatMap((g) =>
    g.partitions.length === 0
      ? [[g.groupId, g.state, g.members, '-', null, null, null, null]]
      : g.partitions.map((p) => [g.groupId, g.state, g.members, p.topic, p.partition, p.committed, p.high, p.lag]),
  );
  out(formatTable(['GROUP', 'STATE', 'MEMBERS', 'TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG'], rows));
  return 0;
}

interface ResetRequest {
  readonly groupId: string;
  readonly topic: string;
  readonly spec: OffsetResetSpec;
  readonly dryRun: boolean;
  readonly json: boolean;
}

function resetRequestFromArgs(args: ParsedArgs): ResetRequest {
  return {
    groupId: required(args, 'group'),
    topic: required(args, 'topic'),
    spec: resetSpecFromArgs(args),
    dryRun: args.values['dry-run'] === true,
    json: outputFormat(args, ['table', 'json']) === 'json',
  };
}

async function resetOffsets(admin: Admin, { groupId, topic, spec, dryRun, json }: ResetRequest, out: (text: string) => void): Promise<number> {
  const partitions = await admin.fetchTopicOffsets(topic);
  const committed = new Map((await admin.fetchGroupLag(groupId)).filter((l) => l.topic === topic).map((l) => [l.partition, l.committed]));
  const current = (partition: number) => committed.get(partition) ?? null;
  let targets: { partition: number; offset: number }[];
  let note = '';
  if (dryRun) {
    const byTime = 'to' in spec && spec.to === 'datetime' ? await admin.fetchOffsetsByTimestamp(topic, spec.timestamp) : [];
    targets = resolveReset(spec, partitions, current, (p) => byTime.find((o) => o.partition === p)?.offset);
    const members = (await admin.listGroups()).find((g) => g.groupId === groupId)?.members ?? 0;
    note = members > 0 ? `dry run: nothing changed; the group has ${members} active member(s), so a reset would be refused now\n` : 'dry run: nothing changed\n';
  } else {
    targets = await admin.resetGroupOffsets(groupId, topic, spec);
  }
  const rows = targets.map((t) => ({ topic, partition: t.partition, previous: current(t.partition), offset: t.offset }));
  if (json) {
    out(`${JSON.stringify({ groupId, topic, dryRun, partitions: rows }, null, 2)}\n`);
    return 0;
  }
  out(formatTable(['GROUP', 'TOPIC', 'PARTITION', 'PREVIOUS', 'NEW'], rows.map((r) => [groupId, topic, r.partition, r.previous, r.offset])));
  out(note);
  return 0;
}

/** The command's work with its output and log made explicit, for tests. */
export async function runOffsets(args: ParsedArgs, out: (text: string) => void, open: (config: LogConfig) => Promise<MessageLog> = openLog): Promise<number> {
  const [sub, ...extra] = args.positionals;
  if (sub !== 'list' && sub !== 'reset') throw new UsageError(sub === undefined ? 'give a subcommand: list or reset' : `unknown subcommand "${sub}" (list or reset)`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (sub === 'list') {
    for (const opt of ['topic', 'dry-run', ...TARGETS]) if (args.values[opt] !== undefined) throw new UsageError(`--${opt} belongs to reset, not list`);
  }
  const reset = sub === 'reset' ? resetRequestFromArgs(args) : undefined;
  outputFormat(args, ['table', 'json']);
  const log = await openLogAdmin(logConfigFromArgs(args), open);
  try {
    return reset === undefined ? await listOffsets(log.admin, args, out) : await resetOffsets(log.admin, reset, out);
  } finally {
    await log.close();
  }
}

export const offsetsCommand: Command = {
  name: 'offsets',
  usage: USAGE,
  positionals: true,
  options: {
    group: { type: 'string' },
    topic: { type: 'string' },
    'to-earliest': { type: 'boolean' },
    'to-latest': { type: 'boolean' },
    'to-datetime': { type: 'string' },
    'to-offset': { type: 'string' },
    'shift-by': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
    ...OUTPUT_OPTION,
    config: { type: 'string' },
    'log-dir': { type: 'string' },
    brokers: { type: 'string' },
  },
  run: (args) => runOffsets(args, (text) => process.stdout.write(text)),
};
