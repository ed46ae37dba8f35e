// log.valueFormat confluent: what ingest writes to flows.raw is read back by fastavro, an Avro
// implementation independent of avsc, from the Confluent framing (00, schema id) and the schema text,
// and agrees field for field with flowagg's own reader.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import { openEmbeddedLog } from '../lib/log/embedded/index.js';
import { until } from '../lib/testing/until.js';
import { readWithFastavro } from '../lib/log/schema-registry/testing/fastavro.js';
import { flowRecordReader } from '../schemas/flow-record.js';
import { ingestConfig } from './config.js';
import { createIngest } from './index.js';
import { agentMessages, agentTemplate, readFlowRecordValues } from './testing/fakes.js';

const SCHEMA_FILE = fileURLToPath(new URL('../schemas/flow-record.avsc', import.meta.url));
const SCHEMA_ID = 4242;

/** avsc's decoded value in the shape read-confluent.py prints: bytes as hex, longs as numbers. */
function plain(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

test('flows.raw values framed for a schema registry decode with fastavro exactly as flowagg reads them', async (t) => {
  const log = await openEmbeddedLog({ dir: mkdtempSync(join(tmpdir(), 'flowagg-confluent-')), fsync: { policy: 'interval' } });
  t.after(() => log.close());
  const ingest = createIngest(ingestConfig.parse({ aggregatorTransportProtocol: 'udp', ingest: { host: '127.0.0.1', port: 0, grpc: { enabled: false } } }), {
    log,
    framing: { kind: 'confluent', schemaId: SCHEMA_ID },
  });
  await ingest.start();
  t.after(() => ingest.stop());
  const socket = createSocket('udp4');
  t.after(() => socket.close());
  const encoder = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 1400 });
  for (const m of agentMessages(encoder, agentTemplate(), 0, 40)) socket.send(m, ingest.ports.udp!, '127.0.0.1');
  await until('the 40 records written', () => ingest.stats().written >= 40);
  assert.equal(ingest.stats().written, 40);

  const values = (await readFlowRecordValues(log)).map((r) => r.value!);
  assert.equal(values.length, 40);
  for (const v of values) assert.deepEqual([...v.subarray(0, 5)], [0, 0, 0, 0x10, 0x92], 'magic byte 0, then schema id 4242 big-endian');
  const ours = flowRecordReader(SCHEMA_ID);
  const theirs = readWithFastavro(values, { schema: SCHEMA_FILE });
  assert.equal(theirs.length, 40);
  for (const [i, r] of theirs.entries()) {
    assert.equal(r.schemaId, SCHEMA_ID);
    assert.deepEqual(r.record, plain(ours.decode(values[i]!)));
  }
  assert.deepEqual(new Set(theirs.map((r) => r.record.sourceTransportPort)).size, 40, 'forty different records');
});
