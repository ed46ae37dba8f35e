import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { kubernetesSection, resolveSourceKind } from './config.js';
import { InventoryMetadataSource, openMetadataSource } from './index.js';
import { InformerMetadataSource } from './informers/source.js';
import { FakeKubeApiServer, kubeConfigFor } from './testing/fake-api-server.js';

describe('kubernetes configuration section', () => {
  it('defaults to Antrea\'s namespace and sync timeout, and to the API server only inside a Pod', () => {
    const c = kubernetesSection.parse(undefined);
    assert.deepEqual(c, { enable: 'auto', antreaNamespace: 'kube-system', syncTimeout: 30_000, deletedRetention: 300_000, clockSkewTolerance: 5000 });
    assert.equal(resolveSourceKind(c, {}), 'none');
    assert.equal(resolveSourceKind(c, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), 'informers');
    assert.equal(resolveSourceKind(kubernetesSection.parse({ kubeconfig: '/k' }), {}), 'informers');
    assert.equal(resolveSourceKind(kubernetesSection.parse({ enable: true }), {}), 'informers');
    assert.equal(resolveSourceKind(kubernetesSection.parse({ enable: false }), { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), 'none');
    assert.equal(resolveSourceKind(kubernetesSection.parse({ inventory: 'inv.yaml' }), { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), 'inventory');
  });

  it('opens the source it names', async () => {
    assert.equal(await openMetadataSource(kubernetesSection.parse({}), { env: {} }), undefined);
    const dir = mkdtempSync(join(tmpdir(), 'inv-'));
    writeFileSync(join(dir, 'inv.yaml'), 'pods: [{ namespace: a, name: p, ips: [10.0.0.1] }]\n');
    const inv = await openMetadataSource(kubernetesSection.parse({ inventory: join(dir, 'inv.yaml') }), { env: {} });
    assert.ok(inv instanceof InventoryMetadataSource);
    assert.equal(inv.podByIp('10.0.0.1', 0)?.name, 'p');
    const fake = await FakeKubeApiServer.start();
    try {
      fake.seed('nodes', { metadata: { name: 'n1' } });
      const source = await openMetadataSource(kubernetesSection.parse({ enable: true }), { env: {}, kubeConfig: kubeConfigFor(fake) });
      assert.ok(source instanceof InformerMetadataSource);
      await source.ready();
      assert.equal(source.nodeByName('n1')?.name, 'n1');
      await source.close();
    } finally {
      await fake.stop();
    }
  });
});
