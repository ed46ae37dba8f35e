import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { kafkajsConfig } from './client.js';
import { kafkaConfigSchema } from './config.js';
import { KAFKA_CONFIG } from './errors.js';

test('brokers are a list or a comma-separated string; durations and defaults are applied', () => {
  const c = kafkaConfigSchema.parse({ brokers: 'a:9092, b:9093', requestTimeout: '10s' });
  assert.deepEqual(c.brokers, ['a:9092', 'b:9093']);
  assert.equal(c.requestTimeout, 10_000);
  assert.equal(c.compression, 'none');
  assert.equal(c.clientId, 'flowagg');
});

test('bad settings are refused with the path that is wrong', () => {
  const issues = (input: unknown) => kafkaConfigSchema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
  assert.match(issues({ brokers: 'kafka' }).join(), /brokers\.0: a broker is host:port/);
  assert.match(issues({ brokers: [] }).join(), /at least one broker/);
  assert.match(issues({ brokers: 'k:1', compression: 'lz4' }).join(), /compression/);
  assert.match(issues({ brokers: 'k:1', ssl: { cert: '/c.pem' } }).join(), /ssl: ssl.cert and ssl.key go together/);
  assert.match(issues({ brokers: 'k:1', sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } }).join(), /sasl.mechanism/);
  assert.match(issues({ brokers: 'k:1', tls: {} }).join(), /tls/);
});

test('TLS files and SASL credentials are passed through to kafkajs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-kafka-tls-'));
  try {
    await writeFile(join(dir, 'ca.pem'), 'CA PEM');
    await writeFile(join(dir, 'client.pem'), 'CERT PEM');
    await writeFile(join(dir, 'client.key'), 'KEY PEM');
    const config = kafkaConfigSchema.parse({
      brokers: ['k:9093'],
      ssl: { ca: join(dir, 'ca.pem'), cert: join(dir, 'client.pem'), key: join(dir, 'client.key'), rejectUnauthorized: false },
      sasl: { mechanism: 'scram-sha-512', username: 'flowagg', password: 's3cret' },
      connectionTimeout: '5s',
    });
    const k = kafkajsConfig(config);
    assert.deepEqual(k.ssl, { rejectUnauthorized: false, ca: ['CA PEM'], cert: 'CERT PEM', key: 'KEY PEM' });
    assert.deepEqual(k.sasl, { mechanism: 'scram-sha-512', username: 'flowagg', password: 's3cret' });
    assert.equal(k.connectionTimeout, 5000);
    assert.deepEqual(k.brokers, ['k:9093']);

    assert.equal(kafkajsConfig(kafkaConfigSchema.parse({ brokers: 'k:1' })).ssl, undefined, 'plaintext without an ssl section');
    assert.equal(kafkajsConfig(kafkaConfigSchema.parse({ brokers: 'k:1', ssl: { enabled: false, ca: '/nowhere' } })).ssl, undefined);
    assert.deepEqual(kafkajsConfig(kafkaConfigSchema.parse({ brokers: 'k:1', ssl: {} })).ssl, { rejectUnauthorized: true }, 'TLS with the system CAs');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an unreadable TLS file is a configuration error naming the file', () => {
  const config = kafkaConfigSchema.parse({ brokers: 'k:1', ssl: { ca: '/nonexistent/ca.pem' } });
  assert.throws(() => kafkajsConfig(config), (err: unknown) => isFlowaggError(err, KAFKA_CONFIG) && /TLS CA file \/nonexistent\/ca.pem/.test(err.message));
});
