// log.valueFormat confluent against a real Confluent-compatible schema registry (SCHEMA_REGISTRY_URL:
// Confluent Schema Registry, Karapace, Redpanda, or Apicurio's ccompat API): `flowagg run` registers the
// FlowRecord schema under flows.raw-value, frames flows.raw with the id it got, and fastavro, fetching
// the writer schema from the registry by that id, reads every record as flowagg does.
// Skipped when SCHEMA_REGISTRY_URL is not set: no registry installs from this machine's package
// registries (Karapace is not on PyPI; Apicurio's schema-util-provider is not served by Maven Central).
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../config/load.js';
import { MessageEncoder } from '../../ipfix/message-encoder.js';
import { serve } from '../../cli/commands/serve.js';
import { serviceConfigSchema } from '../../cli/commands/service-config.js';
import { openEmbeddedLog } from '../embedded/index.js';
import { readAll } from '../embedded/testing/read-all.js';
import { readLogApi } from '../admin-api.js';
import { agentMessages, agentTemplate } from '../../../ingest/testing.js';
import { flowRecordReader } from '../../../schemas/flow-record.js';
import { readWithFastavro } from './testing/fastavro.js';
import { SchemaRegistryClient } from './client.js';

const url = process.env.SCHEMA_REGISTRY_URL;

function freeUdpPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createSocket('udp4').bind(0, '127.0.0.1', () => {
      const p = probe.address().port;
      probe.close(() => resolve(p));
    });
  });
}

test('flowagg run with valueFormat confluent: registered under flows.raw-value, read back by fastavro through the registry', { skip: url === undefined && 'SCHEMA_REGISTRY_URL is not set' }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-registry-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const topic = `flows.raw.${process.pid}`;
  const port = await freeUdpPort();
  const config = loadConfig(serviceConfigSchema, {
    env: {},
    overrides: {
      'log.embedded.dir': dir,
      'log.topics.flowsRaw': topic,
      'log.valueFormat': 'confluent',
      'log.schemaRegistry.url': url,
      aggregatorTransportProtocol: 'udp',
      'ingest.host': '127.0.0.1',
      'ingest.port': port,
      'apiServer.apiPort': 0,
      'apiServer.bindAddress': '127.0.0.1',
    },
  });
  const stop = new AbortController();
  const running = serve(config, { command: 'run', signal: stop.signal });
  for (let i = 0; i < 600 && readLogApi(dir) === undefined; i++) await sleep(50);
  assert.ok(readLogApi(dir), 'flowagg run started');
  const api = readLogApi(dir)!;
  const socket = createSocket('udp4');
  const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
  for (const m of agentMessages(encoder, agentTemplate(), 0, 25)) socket.send(m, port, '127.0.0.1');
  const written = async () => ((await (await fetch(new URL('/recordmetrics', api.url))).json()) as { numRecordsWritten: number }).numRecordsWritten;
  for (let i = 0; i < 600 && (await written()) < 25; i++) await sleep(50);
  socket.close();
  stop.abort();
  await running;

  const log = await openEmbeddedLog({ dir });
  const values = (await readAll(log, topic)).map((r) => r.value!);
  await log.close();
  assert.equal(values.length, 25);
  const id = values[0]!.readUInt32BE(1);
  assert.ok(values.every((v) => v[0] === 0 && v.readUInt32BE(1) === id), 'every value framed with the one registered id');
  const client = new SchemaRegistryClient(config.log.schemaRegistry!);
  assert.equal(await client.register(`${topic}-value`, await client.schemaById(id)), id, 'the id is the one registered under the topic subject');
  const ours = flowRecordReader(id);
  const read = readWithFastavro(values, { registry: url! });
  assert.deepEqual(
    read.map((r) => [r.schemaId, r.record.sourceTransportPort, r.record.octetDeltaCount]),
    values.map((v) => {
      const r = ours.decode(v);
      return [id, r.sourceTransportPort, r.octetDeltaCount === null ? null : Number(r.octetDeltaCount)];
    }),
  );
});
