import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { isFlowaggError } from '../errors.js';
import { K8S_CONFIG_UNAVAILABLE, loadKubeConfig } from './client.js';
import { FakeKubeApiServer } from './testing/fake-api-server.js';

describe('loadKubeConfig', () => {
  it('reads a kubeconfig file and reaches the API with its token', async () => {
    const fake = await FakeKubeApiServer.start({ token: 'from-file' });
    try {
      fake.seed('secrets', { metadata: { name: 's', namespace: 'ns' } });
      const path = join(mkdtempSync(join(tmpdir(), 'kubeconfig-')), 'config');
      writeFileSync(path, [
        'apiVersion: v1', 'kind: Config', 'current-context: c',
        `clusters: [{name: k, cluster: {server: "${fake.url}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: from-file}}]',
        'contexts: [{name: c, context: {cluster: k, user: u}}]',
      ].join('\n'));
      const api = loadKubeConfig({ kubeconfig: path }).makeApiClient(CoreV1Api);
      assert.deepEqual((await api.listNamespacedSecret({ namespace: 'ns' })).items.map((s) => s.metadata?.name), ['s']);
    } finally {
      await fake.stop();
    }
  });

  it('builds the in-cluster configuration from the service account files', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'sa-'));
    const dir = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'token'), 'sa-token');
    writeFileSync(join(dir, 'namespace'), 'flows');
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    try {
      delete process.env.KUBERNETES_SERVICE_HOST;
      assert.throws(() => loadKubeConfig({ inCluster: true, pathPrefix: prefix }), (e) => isFlowaggError(e, K8S_CONFIG_UNAVAILABLE));
      process.env.KUBERNETES_SERVICE_HOST = '10.96.0.1';
      process.env.KUBERNETES_SERVICE_PORT = '443';
      const kc = loadKubeConfig({ inCluster: true, pathPrefix: prefix });
      assert.equal(kc.getCurrentCluster()?.server, 'https://10.96.0.1:443');
      assert.equal(kc.getContextObject(kc.getCurrentContext())?.namespace, 'flows');
    } finally {
      for (const [k, v] of [['KUBERNETES_SERVICE_HOST', saved.host], ['KUBERNETES_SERVICE_PORT', saved.port]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('names the file it could not read', () => {
    assert.throws(() => loadKubeConfig({ kubeconfig: '/nonexistent/kubeconfig' }), (e) => isFlowaggError(e, K8S_CONFIG_UNAVAILABLE) && /cannot load/.test(e.message));
  });
});
