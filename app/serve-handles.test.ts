// After serve() stopped every service, nothing it opened may keep the process alive: every kind of
// service at once (UDP, TCP and TLS collectors, Antrea's gRPC collector, the processor with Kubernetes
// informers, the flow log exporter, the flow stream), its certificates kept in Kubernetes, clients still
// connected at the stop. Counted with process.getActiveResourcesInfo(), which lists what holds the event
// loop open (unref'd timers do not).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../lib/config/load.js';
import { FakeKubeApiServer, kubeConfigFor } from '../lib/k8s/testing/fake-api-server.js';
import { untilHolds } from '../lib/testing/until.js';
import { serve } from './serve.js';
import { serviceConfigSchema } from './service-config.js';
import { openedSince } from '../lib/testing/active-resources.js';

test('once serve() has stopped every service, nothing it opened keeps the process alive', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-serve-handles-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The API server stays up, as a cluster's does: a watch left open would hold both ends of its connection.
  const fake = await FakeKubeApiServer.start();
  t.after(() => fake.stop());
  const before = process.getActiveResourcesInfo();
  writeFileSync(join(dir, 'kubeconfig'), kubeConfigFor(fake, 'flow-aggregator').exportConfig());
  // The TLS certificates' store (mode k8s) finds the API server as a Pod's client would, through KUBECONFIG.
  const kubeconfigBefore = process.env.KUBECONFIG;
  process.env.KUBECONFIG = join(dir, 'kubeconfig');
  t.after(() => (kubeconfigBefore === undefined ? delete process.env.KUBECONFIG : (process.env.KUBECONFIG = kubeconfigBefore)));
  const config = loadConfig(serviceConfigSchema, {
    env: {},
    overrides: {
      aggregatorTransportProtocol: ['udp', 'tcp', 'tls'], 'ingest.host': '127.0.0.1', 'ingest.port': 0, 'ingest.tlsPort': 0, 'ingest.grpc.port': 0,
      'ingest.tls.mode': 'k8s', 'ingest.tls.namespace': 'flow-aggregator',
      'kubernetes.enable': true, 'kubernetes.kubeconfig': join(dir, 'kubeconfig'),
      'flowStreamService.enable': true, 'flowStreamService.port': 0,
      'flowLogger.enable': true, 'flowLogger.path': join(dir, 'flows.log'),
      'apiServer.apiPort': 0, 'apiServer.bindAddress': '127.0.0.1',
      'log.embedded.dir': join(dir, 'log'), 'log.embedded.fsync.policy': 'interval',
    },
  });
  const stop = new AbortController();
  let started!: (ports: { http: number; collectors: Readonly<Record<string, number>> }) => void;
  const ports = new Promise<{ http: number; collectors: Readonly<Record<string, number>> }>((resolve) => (started = resolve));
  const running = serve(config, { command: 'run', processor: true, exporters: 'enabled', signal: stop.signal, onStarted: (p) => started(p) });
  const { http, collectors } = await ports;
  // Clients left connected when the stop comes: the collectors and the HTTP server must close them.
  const clients: Socket[] = [];
  for (const port of [collectors.tcp!, collectors.tls!, collectors.grpc!, http]) {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => {});
    clients.push(socket);
  }
  const closedByServer = clients.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
  stop.abort();
  assert.equal(await running, 0);
  await Promise.all(closedByServer);
  // Connections to the API server that its client keeps alive idle are closed by the server within 5 s.
  const left = await untilHolds('what serve() opened to be closed (the value: what is still open)', () => openedSince(before), (open) => open.length === 0, { timeoutMs: 10_000 });
  assert.deepEqual(left, []);
});
