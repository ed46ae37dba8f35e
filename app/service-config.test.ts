import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../lib/errors.js';
import { type ConfigDiagnostic, loadConfig, readConfig } from '../lib/config/load.js';
import { antreaPendingShape } from '../lib/config/antrea-keys.js';
import { configKeys, reloadPolicyOf } from '../lib/config/keys.js';
import { serviceConfigSchema } from './service-config.js';

const ANTREA_CONF = new URL('../lib/config/testdata/antrea-flow-aggregator.conf', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'flowagg-config-'));
let n = 0;
function file(text: string): string {
  const path = join(dir, `case-${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

test("Antrea's chart flow-aggregator.conf, every key of reference §3, loads unchanged", () => {
  const r = readConfig(serviceConfigSchema, { file: ANTREA_CONF, env: {} });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  assert.deepEqual(r.diagnostics.filter((d) => d.level !== 'notice'), [], 'no errors, no unknown keys');
  assert.deepEqual(r.config.aggregatorTransportProtocol, ['tls']);
  assert.equal(r.config.flowAggregatorAddress, '');
  assert.equal(r.config.apiServer.apiPort, 10348);
  // The keys whose services are not built yet are accepted, each with a notice that it has no effect.
  const noticed = new Set(r.diagnostics.map((d) => d.path));
  // Only the keys no section defines yet are placeholders (the exporters' sections are real).
  const shape = (serviceConfigSchema as unknown as { shape: Record<string, unknown> }).shape;
  const pending = Object.entries(antreaPendingShape).filter(([k, v]) => shape[k] === v).map(([k]) => k);
  for (const key of [...pending, 'recordBufferSize']) {
    // The chart writes clusterID and the API server's TLS keys empty: an empty value asks for nothing.
    assert.equal(noticed.has(key), key !== 'clusterID', `a notice for ${key}`);
  }
  assert.ok(!noticed.has('apiServer.tlsCipherSuites'));
  const notice = r.diagnostics.find((d) => d.path === 'recordBufferSize')!;
  assert.match(notice.source!, /antrea-flow-aggregator\.conf:\d+$/);
});

test("the reload policies are Antrea's (reference §1)", () => {
  const keys = configKeys(serviceConfigSchema);
  assert.equal(reloadPolicyOf(keys, ['mode']), 'refused');
  assert.equal(reloadPolicyOf(keys, ['recordContents', 'podLabels']), 'live');
  for (const exporter of ['flowCollector', 'clickHouse', 's3Uploader', 'flowLogger']) assert.equal(reloadPolicyOf(keys, [exporter, 'enable']), 'live', exporter);
  for (const key of ['apiServer', 'activeFlowRecordTimeout', 'inactiveFlowRecordTimeout', 'aggregatorTransportProtocol', 'flowAggregatorAddress', 'flowStreamService']) {
    assert.equal(reloadPolicyOf(keys, [key]), 'restart', key);
  }
});

type Expect = Partial<Omit<ConfigDiagnostic, 'message'>> & { message: RegExp };
interface Case {
  readonly name: string;
  readonly yaml?: string;
  readonly env?: Record<string, string>;
  readonly ok: boolean;
  readonly expect: readonly Expect[];
}

const CASES: readonly Case[] = [
  {
    name: 'a port out of range names the path, the line, the value and the bound',
    yaml: 'ingest:\n  port: 70000\n',
    ok: false,
    expect: [{ level: 'error', path: 'ingest.port', source: ':2', message: /^70000 is too large: at most 65535$/ }],
  },
  {
    name: 'an unknown transport lists the allowed ones',
    yaml: 'aggregatorTransportProtocol: quic\n',
    ok: false,
    expect: [{ level: 'error', path: 'aggregatorTransportProtocol.0', message: /"quic" is not a transport \(tls, tcp, udp or none\)/ }],
  },
  {
    name: 'an enum lists its values',
    yaml: 'log:\n  backend: cassandra\n',
    ok: false,
    expect: [{ level: 'error', path: 'log.backend', message: /^"cassandra" is not one of: embedded, kafka$/ }],
  },
  {
    name: 'a bad duration gives examples',
    yaml: 'ingest:\n  templateTtl: soon\n',
    ok: false,
    expect: [{ level: 'error', path: 'ingest.templateTtl', message: /"soon" is not a duration \(examples: 500ms/ }],
  },
  {
    name: 'a value where a section belongs',
    yaml: 'apiServer: 10348\n',
    ok: false,
    expect: [{ level: 'error', path: 'apiServer', message: /^10348 is not a section/ }],
  },
  {
    name: "the API server's TLS keys take Go's names, as Antrea's, and say which ones work",
    yaml: 'apiServer:\n  tlsMinVersion: TLS1.2\n  tlsCipherSuites: TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,RC4\n',
    ok: false,
    expect: [
      { level: 'error', path: 'apiServer.tlsCipherSuites', message: /^"RC4" is not a cipher suite Node's TLS offers; give Go's names, comma-separated, from: TLS_RSA_WITH_AES_128_CBC_SHA, / },
      { level: 'error', path: 'apiServer.tlsMinVersion', message: /^"TLS1.2" is not a TLS version: one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13$/ },
    ],
  },
  {
    name: 'a certificate needs its key',
    yaml: 'apiServer:\n  certFile: /etc/flowagg/api.crt\n',
    ok: false,
    expect: [{ level: 'error', path: 'apiServer.keyFile', message: /^keyFile is required with certFile: give both, or neither for a self-signed certificate$/ }],
  },
  {
    name: 'plain HTTP takes no TLS or authentication keys',
    yaml: 'apiServer:\n  protocol: http\n  certFile: a.crt\n  keyFile: a.key\n  tlsMinVersion: VersionTLS13\n  delegateAuth: true\n',
    ok: false,
    expect: [
      { level: 'error', path: 'apiServer.certFile', message: /^certFile applies to protocol https; protocol is http \(plain, without authentication\)$/ },
      { level: 'error', path: 'apiServer.keyFile', message: /^keyFile applies to protocol https/ },
      { level: 'error', path: 'apiServer.tlsMinVersion', message: /^tlsMinVersion applies to protocol https/ },
      { level: 'error', path: 'apiServer.delegateAuth', message: /^protocol http has no authentication to delegate: set protocol https, or delegateAuth auto$/ },
    ],
  },
  {
    name: "an environment variable's error names the variable",
    env: { FLOWAGG_CFG_INGEST_PORT: 'abc' },
    ok: false,
    expect: [{ level: 'error', path: 'ingest.port', source: 'environment variable FLOWAGG_CFG_INGEST_PORT', message: /^"abc" is not a number$/ }],
  },
  {
    name: 'an environment variable that names no key is a warning with the closest variable',
    env: { FLOWAGG_CFG_INGEST_PROT: '4740' },
    ok: true,
    expect: [{ level: 'warning', source: 'environment variable FLOWAGG_CFG_INGEST_PROT', message: /names no configuration key.*did you mean FLOWAGG_CFG_INGEST_PORT\?/ }],
  },
  {
    name: 'an unknown key is a warning naming the closest key, and the rest still loads',
    yaml: 'flowColector:\n  enable: true\ningest:\n  udp:\n    maxSession: 5\n',
    ok: true,
    expect: [
      { level: 'warning', path: 'flowColector', source: ':1', message: /unknown key, ignored; did you mean flowCollector\?/ },
      { level: 'warning', path: 'ingest.udp.maxSession', message: /did you mean ingest\.udp\.maxSessions\?/ },
    ],
  },
  {
    name: 'an unknown key does not hide a cross-key error',
    yaml: 'aggregatorTransportProtocol: [tcp, tls]\nnonsense: 1\n',
    ok: false,
    expect: [
      { level: 'warning', path: 'nonsense', message: /unknown key, ignored$/ },
      { level: 'error', path: 'ingest.tlsPort', message: /TCP and TLS cannot both listen on TCP port 4739/ },
    ],
  },
  {
    name: 'every problem is reported at once',
    yaml: 'ingest:\n  port: -1\n  queue:\n    maxBytes: lots\nlog:\n  embedded:\n    fsync:\n      policy: sometimes\n',
    ok: false,
    expect: [
      { level: 'error', path: 'ingest.port', message: /^-1 is too small: at least 0$/ },
      { level: 'error', path: 'ingest.queue.maxBytes', message: /"lots" is not a size/ },
      { level: 'error', path: 'log.embedded.fsync.policy', source: ':8', message: /"sometimes" is not one of: always, interval/ },
    ],
  },
  {
    name: 'the kafka backend needs its section',
    yaml: 'log:\n  backend: kafka\n',
    ok: false,
    expect: [{ level: 'error', path: 'log.kafka', message: /backend kafka needs the log\.kafka section/ }],
  },
  {
    name: 'a broker address that is not host:port shows the value',
    yaml: 'log:\n  backend: kafka\n  kafka:\n    brokers: [kafka-0]\n',
    ok: false,
    expect: [{ level: 'error', path: 'log.kafka.brokers.0', message: /a broker is host:port \(got "kafka-0"\)/ }],
  },
  {
    name: 'the confluent framing needs a schema registry',
    yaml: 'log:\n  valueFormat: confluent\n',
    ok: false,
    expect: [{ level: 'error', path: 'log.schemaRegistry', message: /valueFormat confluent needs log\.schemaRegistry\.url/ }],
  },
  {
    name: 'a schema registry URL must be http or https',
    yaml: 'log:\n  valueFormat: confluent\n  schemaRegistry:\n    url: registry:8081\n',
    ok: false,
    expect: [{ level: 'error', path: 'log.schemaRegistry.url', source: ':4', message: /"registry:8081" is not an http:\/\/ or https:\/\/ URL/ }],
  },
  {
    name: 'YAML that does not parse says where',
    yaml: 'ingest:\n  port: [4739\n',
    ok: false,
    expect: [{ level: 'error', path: '', source: ':', message: /not valid YAML/ }],
  },
  {
    name: 'a list at the top level',
    yaml: '- mode: Aggregate\n',
    ok: false,
    expect: [{ level: 'error', message: /the top level must be a mapping of keys, not a list/ }],
  },
];

for (const c of CASES) {
  test(`configuration: ${c.name}`, () => {
    const r = readConfig(serviceConfigSchema, { ...(c.yaml !== undefined && { file: file(c.yaml) }), env: c.env ?? {} });
    assert.equal(r.ok, c.ok, JSON.stringify(r.diagnostics, null, 2));
    const got = r.diagnostics.filter((d) => d.level !== 'notice');
    assert.equal(got.length, c.expect.length, JSON.stringify(got, null, 2));
    for (const e of c.expect) {
      const match = got.find(
        (d) =>
          e.message.test(d.message) &&
          (e.level === undefined || d.level === e.level) &&
          (e.path === undefined || d.path === e.path) &&
          (e.source === undefined || (d.source ?? '').includes(e.source)),
      );
      assert.ok(match, `expected ${JSON.stringify({ ...e, message: String(e.message) })} among ${JSON.stringify(got, null, 2)}`);
    }
  });
}

test('loadConfig throws one FLOWAGG_ERR_CONFIG_INVALID listing every error, and reports warnings', () => {
  const reported: ConfigDiagnostic[] = [];
  const path = file('ingest:\n  port: 70000\n  prot: 1\napiServer:\n  apiPort: x\n');
  assert.throws(
    () => loadConfig(serviceConfigSchema, { file: path, env: {}, report: (d) => reported.push(d) }),
    (err: unknown) => {
      assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_CONFIG_INVALID'));
      assert.match(err.message, /ingest\.port \(.*:2\): 70000 is too large: at most 65535/);
      assert.match(err.message, /apiServer\.apiPort \(.*:5\): "x" is not a number/);
      return true;
    },
  );
  assert.deepEqual(reported.map((d) => [d.level, d.path]), [['warning', 'ingest.prot']]);
});

test('the kubernetes section is part of the service configuration, with messages naming the key', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'cfg-')), 'flowagg.yaml');
  writeFileSync(path, 'kubernetes:\n  enable: true\n  inventory: inv.yaml\n  syncTimeout: soon\n  antreaNamespace: ""\n');
  assert.throws(
    () => loadConfig(serviceConfigSchema, { file: path, env: {} }),
    (err: Error) =>
      /kubernetes\.syncTimeout \(.*flowagg\.yaml:4\): "soon" is not a duration/.test(err.message) && /kubernetes\.antreaNamespace \(.*:5\): "" is empty/.test(err.message),
  );
  writeFileSync(path, 'kubernetes:\n  enable: true\n  inventory: inv.yaml\n');
  assert.throws(() => loadConfig(serviceConfigSchema, { file: path, env: {} }), /kubernetes\.enable \(.*flowagg\.yaml:2\): enable: true asks for the API server, and inventory for a file/);
  const ok = loadConfig(serviceConfigSchema, { env: { FLOWAGG_CFG_KUBERNETES_SYNCTIMEOUT: '10s' } });
  assert.equal(ok.kubernetes.syncTimeout, 10_000);
});
