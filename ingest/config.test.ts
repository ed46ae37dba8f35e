import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingestConfig } from './config.js';

test("defaults: Antrea's TLS on 4739 (empty too), 1800 s template lifetime, flows.raw and ipfix.templates", () => {
  const c = ingestConfig.parse({});
  assert.deepEqual(c.aggregatorTransportProtocol, ['tls']);
  assert.deepEqual(ingestConfig.parse({ aggregatorTransportProtocol: '' }).aggregatorTransportProtocol, ['tls']);
  assert.equal(c.ingest.port, 4739);
  assert.equal(c.ingest.udp.maxDatagramBytes, 65535);
  assert.equal(c.ingest.templateTtl, 1_800_000);
  assert.deepEqual([c.log.topics.flowsRaw, c.log.topics.templates], ['flows.raw', 'ipfix.templates']);
});

test("Antrea's aggregatorTransportProtocol: case-insensitive, one value or a list, none alone", () => {
  assert.deepEqual(ingestConfig.parse({ aggregatorTransportProtocol: 'TLS' }).aggregatorTransportProtocol, ['tls']);
  assert.deepEqual(ingestConfig.parse({ aggregatorTransportProtocol: ['Udp', 'udp', 'TCP'] }).aggregatorTransportProtocol, ['udp', 'tcp']);
  assert.deepEqual(ingestConfig.parse({ aggregatorTransportProtocol: 'None' }).aggregatorTransportProtocol, []);
  const message = (input: unknown) => ingestConfig.safeParse({ aggregatorTransportProtocol: input }).error?.issues.map((i) => i.message).join('; ');
  assert.equal(message(['none', 'udp']), '"none" cannot be combined with other transports');
  assert.equal(message('sctp'), '"sctp" is not a transport (tls, tcp, udp or none)');
});

test('TCP and TLS on one port is refused, naming the key to change', () => {
  assert.throws(() => ingestConfig.parse({ aggregatorTransportProtocol: ['tcp', 'tls'] }), (err: Error) => {
    assert.match(err.message, /TCP and TLS cannot both listen on TCP port 4739/);
    assert.match(err.message, /tlsPort/);
    return true;
  });
  assert.equal(ingestConfig.parse({ aggregatorTransportProtocol: ['tcp', 'tls'], ingest: { tlsPort: 4740 } }).ingest.tlsPort, 4740);
});

test('durations and sizes in their usual forms; unknown keys are errors', () => {
  const c = ingestConfig.parse({ ingest: { templateTtl: '10m', queue: { maxBytes: '16MiB', linger: '2ms' } } });
  assert.equal(c.ingest.templateTtl, 600_000);
  assert.equal(c.ingest.queue.maxBytes, 16 * 2 ** 20);
  assert.equal(c.ingest.queue.linger, 2);
  assert.throws(() => ingestConfig.parse({ ingest: { prot: 1 } }), /Unrecognized key/);
});

test('the limits on hostile input have defaults sized for a 5,000-Node cluster, and reserved slots must leave room', () => {
  const c = ingestConfig.parse({});
  assert.ok(c.ingest.tcp.maxConnections >= 5000 && c.ingest.metrics.maxExporters >= 5000);
  assert.ok(c.ingest.templates.maxTotal >= 5000 * 2 && c.ingest.templates.maxTotalFields >= 5000 * 2 * 43);
  assert.equal(c.ingest.tcp.firstMessageTimeout, 30_000);
  assert.throws(
    () => ingestConfig.parse({ ingest: { tcp: { maxConnections: 100, reservedForKnownSources: 100 } } }),
    (err: Error) => /reservedForKnownSources/.test(err.message) && /leaves none for an exporter that has not connected before/.test(err.message),
  );
});

test('NetFlow: off by default on 2055; its UDP port may not be IPFIX\'s, naming the key to change', () => {
  assert.deepEqual(ingestConfig.parse({}).ingest.netflow, { enabled: false, port: 2055 });
  assert.throws(() => ingestConfig.parse({ aggregatorTransportProtocol: 'udp', ingest: { netflow: { enabled: true, port: 4739 } } }), (err: Error) => {
    assert.match(err.message, /the IPFIX and NetFlow collectors cannot both listen on UDP port 4739/);
    assert.match(err.message, /ingest\.netflow\.port/);
    return true;
  });
  assert.equal(ingestConfig.parse({ aggregatorTransportProtocol: 'tcp', ingest: { netflow: { enabled: true, port: 4739 } } }).ingest.netflow.port, 4739, 'TCP IPFIX and UDP NetFlow may share a number');
});
