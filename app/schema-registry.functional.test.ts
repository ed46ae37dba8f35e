// log.valueFormat confluent against a real Confluent-compatible schema registry (scripts/test.ts starts
// AxonOps Schema Registry with infra/dev/schema-registry, or takes SCHEMA_REGISTRY_URL): `flowagg run`
// registers the FlowRecord schema under flows.raw-value, frames flows.raw with the id it got, and fastavro,
// fetching the writer schema from the registry by that id, reads every record as flowagg does. The same
// through the registry behind mutual TLS and basic auth, whose refusals the client names; and the
// registry's compatibility check, which decides what a new FlowRecord version may change.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../lib/errors.js';
import { apiRequest } from '../lib/apiserver/client.js';
import { loadConfig } from '../lib/config/load.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { serve } from './serve.js';
import { serviceConfigSchema } from './service-config.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { readAll } from '../lib/log/embedded/testing/read-all.js';
import { apiTargetOf, readLogApi } from '../lib/log/admin-api.js';
import { until } from '../lib/testing/until.js';
import { agentMessages, agentTemplate } from '../ingest/testing/fakes.js';
import { schemaRegistryForTests, type SecureRegistry } from '../integration-tests/harness/schema-registry.js';
import { FLOW_RECORD_SCHEMA, flowRecordReader } from '../schemas/flow-record.js';
import { topicValueFraming } from '../lib/log/value-format.js';
import { readWithFastavro } from '../lib/log/schema-registry/testing/fastavro.js';
import { SchemaRegistryClient } from '../lib/log/schema-registry/client.js';
import { schemaRegistrySection, type SchemaRegistryConfig } from '../lib/log/schema-registry/config.js';

const registries = schemaRegistryForTests();
const RECORDS = 25;
/** Subjects of this run: a registry from SCHEMA_REGISTRY_URL keeps those of earlier runs. */
const RUN = `${process.pid}.${Date.now()}`;

function freeUdpPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createSocket('udp4').bind(0, '127.0.0.1', () => {
      const p = probe.address().port;
      probe.close(() => resolve(p));
    });
  });
}

/** The log.schemaRegistry overrides that reach `secure`: its URL, the user, the CA and the client certificate. */
function secureOverrides(secure: SecureRegistry): Record<string, unknown> {
  return {
    'log.schemaRegistry.url': secure.url,
    'log.schemaRegistry.basicAuth.username': secure.username,
    'log.schemaRegistry.basicAuth.password': secure.password,
    'log.schemaRegistry.tls.ca': secure.ca,
    'log.schemaRegistry.tls.cert': secure.cert,
    'log.schemaRegistry.tls.key': secure.key,
  };
}

/** Runs `flowagg run` with log.valueFormat confluent until it has written RECORDS agent records, and returns flows.raw's values. */
async function runWithConfluentFraming(registry: Record<string, unknown>, topic: string) {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-registry-'));
  try {
    const port = await freeUdpPort();
    const config = loadConfig(serviceConfigSchema, {
      env: {},
      overrides: {
        'log.embedded.dir': dir,
        'log.topics.flowsRaw': topic,
        'log.valueFormat': 'confluent',
        ...registry,
        aggregatorTransportProtocol: 'udp',
        'ingest.host': '127.0.0.1',
        'ingest.port': port,
        'apiServer.apiPort': 0,
        'apiServer.bindAddress': '127.0.0.1',
      },
    });
    const stop = new AbortController();
    const running = serve(config, { command: 'run', signal: stop.signal });
    // Registration comes first, over TLS with bcrypt-checked passwords on a busy machine: a generous bound.
    const started = until('flowagg run to publish its log API', () => readLogApi(dir), { timeoutMs: 60_000, intervalMs: 50 });
    // A start that fails (the registry refused) rejects `running` before that.
    const api = await Promise.race([started, running.then(() => started)]);
    const socket = createSocket('udp4');
    const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
    for (const m of agentMessages(encoder, agentTemplate(), 0, RECORDS)) socket.send(m, port, '127.0.0.1');
    const written = async () => ((await apiRequest(apiTargetOf(api), '/recordmetrics')).json as { numRecordsWritten: number }).numRecordsWritten;
    await until(`ingest to write the ${RECORDS} records`, async () => (await written()) >= RECORDS, { timeoutMs: 60_000, intervalMs: 50 });
    socket.close();
    stop.abort();
    assert.equal(await running, 0);

    const log = await openEmbeddedLog({ dir });
    // Ingest's clock ticks (no value) are not FlowRecords.
    const values = (await readAll(log, topic)).flatMap((r) => (r.value === null ? [] : [r.value]));
    await log.close();
    return { values, registryConfig: config.log.schemaRegistry! };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every value is framed with one id, and fastavro, fetching that id from the registry, reads what flowagg reads. */
function assertReadBackThroughRegistry(values: readonly Buffer[], registry: SchemaRegistryConfig): number {
  assert.equal(values.length, RECORDS);
  const id = values[0]!.readUInt32BE(1);
  assert.ok(values.every((v) => v[0] === 0 && v.readUInt32BE(1) === id), 'every value framed with the one registered id');
  const ours = flowRecordReader(id);
  const read = readWithFastavro(values, { registry });
  assert.deepEqual(
    read.map((r) => [r.schemaId, r.record.sourceTransportPort, r.record.octetDeltaCount]),
    values.map((v) => {
      const r = ours.decode(v);
      return [id, r.sourceTransportPort, r.octetDeltaCount === null ? null : Number(r.octetDeltaCount)];
    }),
  );
  assert.equal(new Set(read.map((r) => r.record.sourceTransportPort)).size, RECORDS, 'distinct records');
  return id;
}

async function registryGet(path: string): Promise<unknown> {
  const res = await fetch(new URL(path.replace(/^\//, ''), `${registries.url!.replace(/\/$/, '')}/`));
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

test('flowagg run with valueFormat confluent: registered under flows.raw-value, read back by fastavro through the registry', { skip: registries.skip }, async () => {
  const topic = `flows.raw.${RUN}`;
  const subject = `${topic}-value`;
  const { values, registryConfig } = await runWithConfluentFraming({ 'log.schemaRegistry.url': registries.url }, topic);
  const id = assertReadBackThroughRegistry(values, registryConfig);

  assert.deepEqual(await registryGet(`/subjects/${subject}/versions`), [1], 'one version under the topic subject');
  const latest = (await registryGet(`/subjects/${subject}/versions/latest`)) as { subject: string; id: number; version: number; schema: string };
  assert.deepEqual([latest.subject, latest.id, latest.version], [subject, id, 1]);
  assert.deepEqual(JSON.parse(latest.schema), FLOW_RECORD_SCHEMA, 'the registry keeps the schema flowagg sent');
  // What the next start does: the same schema under the same subject is the same id, no new version.
  assert.deepEqual(await topicValueFraming({ valueFormat: 'confluent', schemaRegistry: registryConfig }, topic, FLOW_RECORD_SCHEMA), { kind: 'confluent', schemaId: id });
  assert.deepEqual(await registryGet(`/subjects/${subject}/versions`), [1]);
});

test('the registry behind mutual TLS and basic auth: flowagg run registers and fastavro reads back with the same credentials; each missing credential is a named refusal', { skip: registries.skip || (registries.secure === undefined && 'SCHEMA_REGISTRY_SECURE_URL is not set (infra/dev/schema-registry starts one)') }, async () => {
  const secure = registries.secure!;
  const topic = `flows.raw.secure.${RUN}`;
  const { values, registryConfig } = await runWithConfluentFraming(secureOverrides(secure), topic);
  const id = assertReadBackThroughRegistry(values, registryConfig);
  assert.deepEqual(await new SchemaRegistryClient(registryConfig).schemaById(id), FLOW_RECORD_SCHEMA);

  const refusal = async (config: unknown, expected: RegExp) => {
    const client = new SchemaRegistryClient(schemaRegistrySection.parse(config)!);
    await assert.rejects(client.register(`${topic}-value`, FLOW_RECORD_SCHEMA), (err: unknown) => {
      assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_LOG_SCHEMA_REGISTRY'), String(err));
      assert.match(err.message, expected);
      assert.equal(err.retriable, false, 'trying again cannot help');
      return true;
    });
  };
  const tls = { ca: secure.ca, cert: secure.cert, key: secure.key };
  const user = { username: secure.username, password: secure.password };
  await refusal({ url: secure.url, tls }, /POST \/subjects\/.*: HTTP 401: .*set log\.schemaRegistry\.basicAuth\.username and \.password/);
  await refusal({ url: secure.url, tls, basicAuth: { ...user, password: 'wrong' } }, /HTTP 401: .*did not accept user "flowagg".*check log\.schemaRegistry\.basicAuth/);
  await refusal({ url: secure.url, tls: { ca: secure.ca }, basicAuth: user }, /refused the TLS connection without a client certificate: set log\.schemaRegistry\.tls\.cert/);
  await refusal({ url: secure.url, tls: { cert: secure.cert, key: secure.key }, basicAuth: user }, /certificate does not verify \(\w+\): set log\.schemaRegistry\.tls\.ca/);
});

test("the registry's BACKWARD compatibility: a field added with a default is a new version and id, a changed type is a named 409", { skip: registries.skip }, async () => {
  const subject = `flowagg-evolution.${RUN}-value`;
  const client = new SchemaRegistryClient(schemaRegistrySection.parse({ url: registries.url })!);
  const schema = FLOW_RECORD_SCHEMA as { fields: { name: string; type: unknown; default?: unknown }[] };
  const v1 = await client.register(subject, schema);
  const v2Schema = { ...schema, fields: [...schema.fields, { name: 'flowaggTestAdded', type: ['null', 'long'], default: null }] };
  const v2 = await client.register(subject, v2Schema);
  assert.notEqual(v2, v1);
  assert.deepEqual(await registryGet(`/subjects/${subject}/versions`), [1, 2]);
  assert.deepEqual(await client.schemaById(v1), schema, 'the first id still resolves to the first schema');
  assert.deepEqual(await client.schemaById(v2), v2Schema);

  const changed = schema.fields.findIndex((f) => JSON.stringify(f.type) === '["null","long"]');
  const v3Schema = { ...v2Schema, fields: v2Schema.fields.map((f, i) => (i === changed ? { ...f, type: ['null', 'boolean'] } : f)) };
  await assert.rejects(client.register(subject, v3Schema), (err: unknown) => {
    assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_LOG_SCHEMA_REGISTRY'));
    assert.match(err.message, new RegExp(`POST /subjects/${subject}/versions: HTTP 409 \\(error 409\\): .*${schema.fields[changed]!.name}`));
    return true;
  });
});
