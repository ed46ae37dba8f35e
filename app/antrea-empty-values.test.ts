// Antrea's "empty or zero means the default", key by key: every key of Antrea's flow-aggregator.conf
// (those of its chart's renderings in lib/config/testdata) written with its empty value ("" for a string or a
// duration, 0 for a number, nothing at all for a boolean or a section, which Go reads as the zero value)
// must load as Antrea's defaulting code (SetConfigDefaults, LoadConfig) would take it. Where flowagg
// differs on purpose, the row says why and the README's migration section must name the key.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { readConfig } from '../lib/config/load.js';
import { regionOf } from '../exporters/s3/config.js';
import { type ServiceConfig, serviceConfigSchema } from './service-config.js';

const TESTDATA = new URL('../lib/config/testdata/', import.meta.url).pathname;
const README = new URL('../README.md', import.meta.url).pathname;

interface Row {
  readonly key: string;
  /** What the file says: "" or 0, or null for a key written with no value. */
  readonly empty: '' | 0 | null;
  /** The value flowagg holds for it (durations in ms), or a check of the loaded configuration. */
  readonly expect: unknown;
  /** Set where flowagg differs from Antrea on purpose: why (and the README's migration section names the key). */
  readonly difference?: string;
}

const check = (f: (c: ServiceConfig) => boolean) => ({ check: f });

const ROWS: readonly Row[] = [
  { key: 'mode', empty: '', expect: 'Aggregate' },
  { key: 'activeFlowRecordTimeout', empty: '', expect: 60_000 },
  { key: 'inactiveFlowRecordTimeout', empty: '', expect: 90_000 },
  { key: 'aggregatorTransportProtocol', empty: '', expect: ['tls'] },
  { key: 'flowAggregatorAddress', empty: '', expect: '' },
  { key: 'recordContents.podLabels', empty: null, expect: false },
  { key: 'apiServer.apiPort', empty: 0, expect: 0, difference: 'port 0 binds a free port, as every port of flowagg does (its tests use it); Antrea takes 0 as 10348. Left out or written with no value it is 10348 in both' },
  { key: 'apiServer.tlsCipherSuites', empty: '', expect: check((c) => !c.apiServer.tlsCipherSuites) },
  { key: 'apiServer.tlsMinVersion', empty: '', expect: check((c) => !c.apiServer.tlsMinVersion || c.apiServer.tlsMinVersion === 'VersionTLS12') },
  { key: 'flowCollector.enable', empty: null, expect: false },
  { key: 'flowCollector.address', empty: '', expect: '' },
  { key: 'flowCollector.observationDomainID', empty: null, expect: undefined },
  { key: 'flowCollector.recordFormat', empty: '', expect: 'IPFIX' },
  { key: 'flowCollector.templateRefreshTimeout', empty: '', expect: 600_000 },
  { key: 'flowCollector.maxIPFIXMsgSize', empty: 0, expect: 0 },
  { key: 'flowCollector.tls.enable', empty: null, expect: false },
  { key: 'flowCollector.tls.caSecretName', empty: '', expect: '' },
  { key: 'flowCollector.tls.serverName', empty: '', expect: '' },
  { key: 'flowCollector.tls.clientSecretName', empty: '', expect: '' },
  { key: 'flowCollector.tls.minVersion', empty: '', expect: '' },
  { key: 'flowCollector.includeK8sNames', empty: null, expect: true },
  { key: 'flowCollector.includeK8sUIDs', empty: null, expect: false },
  { key: 'clickHouse.enable', empty: null, expect: false },
  { key: 'clickHouse.database', empty: '', expect: 'default' },
  { key: 'clickHouse.databaseURL', empty: '', expect: 'tcp://clickhouse-clickhouse.flow-visibility.svc:9000' },
  { key: 'clickHouse.tls.insecureSkipVerify', empty: null, expect: false },
  { key: 'clickHouse.tls.caCert', empty: null, expect: false },
  { key: 'clickHouse.debug', empty: null, expect: false },
  { key: 'clickHouse.compress', empty: null, expect: true },
  { key: 'clickHouse.commitInterval', empty: '', expect: 8000 },
  { key: 's3Uploader.enable', empty: null, expect: false },
  { key: 's3Uploader.bucketName', empty: '', expect: '' },
  { key: 's3Uploader.bucketPrefix', empty: '', expect: '' },
  { key: 's3Uploader.region', empty: '', expect: check((c) => regionOf(c.s3Uploader, {}) === 'us-west-2' && regionOf(c.s3Uploader, { AWS_REGION: 'eu-west-1' }) === 'eu-west-1') },
  { key: 's3Uploader.recordFormat', empty: '', expect: 'CSV' },
  { key: 's3Uploader.compress', empty: null, expect: true },
  { key: 's3Uploader.maxRecordsPerFile', empty: 0, expect: 1_000_000 },
  { key: 's3Uploader.uploadInterval', empty: '', expect: 60_000 },
  { key: 'flowLogger.enable', empty: null, expect: false },
  { key: 'flowLogger.path', empty: '', expect: join(tmpdir(), 'antrea-flows.log') },
  { key: 'flowLogger.maxSize', empty: 0, expect: 100 },
  { key: 'flowLogger.maxBackups', empty: 0, expect: 3 },
  { key: 'flowLogger.maxAge', empty: 0, expect: 0 },
  { key: 'flowLogger.compress', empty: null, expect: true },
  { key: 'flowLogger.recordFormat', empty: '', expect: 'CSV' },
  { key: 'flowLogger.filters', empty: null, expect: [] },
  { key: 'flowLogger.prettyPrint', empty: null, expect: true },
  { key: 'flowStreamService.enable', empty: null, expect: false },
  { key: 'clusterID', empty: '', expect: '' },
  // Antrea's ring buffer of 8192; flowagg has none (README: it has no effect).
  { key: 'recordBufferSize', empty: 0, expect: undefined },
];

function nested(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value as Record<string, unknown>);
}

/** `a:\n  b:\n`: the key with no value, the way Antrea's chart renders a value nobody set. */
function withNoValue(path: readonly string[]): string {
  return path.map((key, depth) => `${'  '.repeat(depth)}${key}:\n`).join('');
}

function valueAt(config: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], config);
}

function load(yaml: string) {
  const r = readConfig(serviceConfigSchema, { file: 'flow-aggregator.conf', text: yaml, env: {} });
  assert.ok(r.ok, r.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  assert.deepEqual(r.diagnostics.filter((d) => d.level !== 'notice'), [], 'no error, no warning');
  return r.config;
}

/** Every leaf key of Antrea's chart-rendered files (the default one leaves observationDomainID out), as dotted paths. */
function antreaKeys(): string[] {
  const walk = (node: unknown, prefix: string): string[] =>
    typeof node === 'object' && node !== null && !Array.isArray(node)
      ? Object.entries(node).flatMap(([k, v]) => walk(v, prefix === '' ? k : `${prefix}.${k}`))
      : [prefix];
  const files = readdirSync(TESTDATA).filter((f) => f.startsWith('antrea-') && f.endsWith('.conf'));
  return [...new Set(files.flatMap((f) => walk(parse(readFileSync(join(TESTDATA, f), 'utf8')), '')))];
}

describe("Antrea's empty values", () => {
  test('the table has every key of Antrea\'s flow-aggregator.conf, once', () => {
    assert.deepEqual([...ROWS.map((r) => r.key)].sort(), antreaKeys().sort());
  });

  for (const row of ROWS) {
    test(`${row.key}: ${JSON.stringify(row.empty)} ${row.difference === undefined ? "takes Antrea's default" : `differs: ${row.difference}`}`, () => {
      const path = row.key.split('.');
      const config = load(row.empty === null ? withNoValue(path) : stringify(nested(path, row.empty)));
      const expect = row.expect as { check?: (c: ServiceConfig) => boolean };
      if (typeof expect === 'object' && expect !== null && typeof expect.check === 'function') assert.ok(expect.check(config), JSON.stringify(valueAt(config, path)));
      else assert.deepEqual(valueAt(config, path), row.expect);
      if (row.difference !== undefined) {
        const readme = readFileSync(README, 'utf8');
        const migration = readme.slice(readme.indexOf("## Migrating from Antrea's FlowAggregator"));
        assert.ok(migration.slice(0, migration.indexOf('\n## ', 3)).includes(`\`${row.key}\``), `README's migration section names ${row.key}`);
      }
    });
  }

  test('the zero templateRefreshTimeout is go-ipfix\'s 600 s, written as 0 or as a duration', () => {
    for (const zero of [0, '0', '0s']) assert.equal(load(stringify({ flowCollector: { templateRefreshTimeout: zero } })).flowCollector.templateRefreshTimeout, 600_000, String(zero));
  });

  test('a section written with no value takes every default of its keys', () => {
    const defaults = load('');
    for (const path of [['recordContents'], ['apiServer'], ['flowCollector'], ['flowCollector', 'tls'], ['clickHouse'], ['clickHouse', 'tls'], ['s3Uploader'], ['flowLogger'], ['flowStreamService']]) {
      assert.deepEqual(valueAt(load(withNoValue(path)), path), valueAt(defaults, path), path.join('.'));
    }
  });
});
