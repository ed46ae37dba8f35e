import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, CoreV1Api, makeInformer, type V1ConfigMap, type V1Node } from '@kubernetes/client-node';
import { FakeKubeApiServer, kubeConfigFor } from './fake-api-server.js';
import { until } from '../../testing/until.js';

function configMap(name: string, data: Record<string, string>, namespace = 'flows'): V1ConfigMap {
  return { metadata: { name, namespace }, data };
}

async function httpCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
    return err.code;
  }
}

describe('fake Kubernetes API server', () => {
  let fake: FakeKubeApiServer;
  let api: CoreV1Api;
  before(async () => {
    fake = await FakeKubeApiServer.start({ token: 's3cret' });
    api = kubeConfigFor(fake).makeApiClient(CoreV1Api);
  });
  after(() => fake.stop());

  it('creates, reads, updates with resourceVersion preconditions and deletes', async () => {
    const created = await api.createNamespacedConfigMap({ namespace: 'crud', body: configMap('a', { k: '1' }, 'crud') });
    assert.equal(created.metadata?.namespace, 'crud');
    const rv1 = created.metadata!.resourceVersion!;
    assert.equal(await httpCode(api.createNamespacedConfigMap({ namespace: 'crud', body: configMap('a', {}, 'crud') })), 409);

    const updated = await api.replaceNamespacedConfigMap({ name: 'a', namespace: 'crud', body: { ...created, data: { k: '2' } } });
    assert.ok(Number(updated.metadata!.resourceVersion) > Number(rv1));
    assert.equal(updated.metadata?.uid, created.metadata?.uid);
    // A writer holding the old resourceVersion loses.
    assert.equal(await httpCode(api.replaceNamespacedConfigMap({ name: 'a', namespace: 'crud', body: { ...created, data: { k: 'stale' } } })), 409);
    assert.deepEqual((await api.readNamespacedConfigMap({ name: 'a', namespace: 'crud' })).data, { k: '2' });
    assert.deepEqual(fake.get('configmaps', 'crud', 'a')?.data, { k: '2' });

    await api.deleteNamespacedConfigMap({ name: 'a', namespace: 'crud' });
    assert.equal(await httpCode(api.readNamespacedConfigMap({ name: 'a', namespace: 'crud' })), 404);
    assert.equal(await httpCode(api.deleteNamespacedConfigMap({ name: 'a', namespace: 'crud' })), 404);
    assert.equal(fake.count({ method: 'PUT', plural: 'configmaps', name: 'a' }), 2);
    assert.equal(fake.count({ method: 'PUT', name: 'a', status: 409 }), 1);
    assert.equal(fake.count({ method: 'POST', namespace: 'crud', status: 409 }), 1);
  });

  it('rejects a wrong token and lets tests inject failures', async () => {
    const other = await FakeKubeApiServer.start({ token: 'right' });
    try {
      const wrong = kubeConfigFor({ url: other.url, token: 'wrong' } as FakeKubeApiServer).makeApiClient(CoreV1Api);
      assert.equal(await httpCode(wrong.listNamespacedSecret({ namespace: 'x' })), 401);
      const right = kubeConfigFor(other).makeApiClient(CoreV1Api);
      other.intercept((req) => (req.method === 'POST' ? { code: 503, reason: 'ServiceUnavailable' } : undefined));
      assert.equal(await httpCode(right.createNamespacedSecret({ namespace: 'x', body: { metadata: { name: 's' } } })), 503);
      assert.equal((await right.listNamespacedSecret({ namespace: 'x' })).items.length, 0);
    } finally {
      await other.stop();
    }
  });

  it('feeds a real informer: list, then watch events in order, resuming after the watch closes', async () => {
    fake.seed('configmaps', configMap('old', { v: '0' }));
    const informer = makeInformer(kubeConfigFor(fake), '/api/v1/namespaces/flows/configmaps', () => api.listNamespacedConfigMap({ namespace: 'flows' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata!.name}=${o.data?.v}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata!.name}=${o.data?.v}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
    await informer.start();
    try {
      await until('initial list', () => seen.length === 1);
      // Registered, not merely requested: ending a watch whose headers are still on the way ends nothing.
      await until('watch open', () => fake.openWatches('configmaps') === 1);
      const [exporters] = fake.seed('configmaps', configMap('exporters', { v: '1' }), configMap('elsewhere', { v: 'x' }, 'other'));
      await api.replaceNamespacedConfigMap({ name: 'exporters', namespace: 'flows', body: { ...exporters!, data: { v: '2' } } });
      fake.remove('configmaps', 'flows', 'old');
      await until('three events', () => seen.length === 4);
      assert.deepEqual(seen, ['add old=0', 'add exporters=1', 'update exporters=2', 'delete old']);

      // The server ends the watch; the informer watches again from its last resourceVersion without relisting.
      const lists = fake.count({ method: 'GET', plural: 'configmaps', watch: false });
      const rv = String(fake.resourceVersion); // the informer saw every change so far
      fake.closeWatches();
      await until('rewatch', () => fake.count({ watch: true, plural: 'configmaps' }) === 2);
      fake.seed('configmaps', configMap('late', { v: '3' }));
      await until('event after rewatch', () => seen.length === 5);
      assert.equal(seen[4], 'add late=3');
      assert.equal(fake.requests.filter((r) => r.watch).at(-1)?.query.resourceVersion, rv);
      assert.equal(fake.count({ method: 'GET', plural: 'configmaps', watch: false }), lists);
      assert.deepEqual(informer.list('flows').map((o) => o.metadata!.name).sort(), ['exporters', 'late']);
    } finally {
      await informer.stop();
    }
  });

  it('answers 410 Gone to a watch from a forgotten resourceVersion, and the informer relists', async () => {
    fake.seed('configmaps', configMap('keep', {}, 'gone'), configMap('drop', {}, 'gone'));
    const informer = makeInformer(kubeConfigFor(fake), '/api/v1/namespaces/gone/configmaps', () => api.listNamespacedConfigMap({ namespace: 'gone' }));
    const deleted: string[] = [];
    informer.on('delete', (o) => deleted.push(o.metadata!.name!));
    await informer.start();
    try {
      await until('watch open', () => fake.openWatches('configmaps') === 1);
      const lists = fake.count({ method: 'GET', namespace: 'gone', watch: false });
      fake.closeWatches();
      fake.remove('configmaps', 'gone', 'drop');
      fake.compact();
      await until('delete seen through the relist', () => deleted.length === 1);
      await until('watching again from the relist', () => fake.openWatches('configmaps') === 1);
      // Exactly one relist: the watch from the relist's resourceVersion is served, not refused again.
      assert.equal(fake.count({ method: 'GET', namespace: 'gone', watch: false }), lists + 1);
      // Ended by the server, refused with 410, open (no status before it ends).
      assert.deepEqual(fake.requests.filter((r) => r.watch && r.namespace === 'gone').map((r) => r.status), [200, 410, undefined]);
      assert.deepEqual(deleted, ['drop']);
      assert.deepEqual(informer.list('gone').map((o) => o.metadata!.name), ['keep']);
    } finally {
      await informer.stop();
    }
  });

  it('resumes a watch from any resourceVersion its bounded history still covers', async () => {
    const small = await FakeKubeApiServer.start({ historyLimit: 2 });
    try {
      small.seed('secrets', ...['a', 'b', 'c', 'd'].map((name) => ({ metadata: { name, namespace: 'h' } }))); // rv 1..4, history keeps 3 and 4
      const watchFrom = async (rv: string) => {
        const abort = new AbortController();
        const res = await fetch(`${small.url}/api/v1/namespaces/h/secrets?watch=true&resourceVersion=${rv}`, { headers: { authorization: `Bearer ${small.token}` }, signal: abort.signal });
        if (res.status !== 200) return res.status;
        const reader = res.body!.getReader();
        let text = '';
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          text += new TextDecoder().decode(chunk.value);
          if (text.split('\n').length >= 3) break;
        }
        abort.abort();
        return text.trim().split('\n').map((l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name);
      };
      assert.deepEqual(await watchFrom('2'), ['c', 'd']);
      assert.equal(await watchFrom('1'), 410);
    } finally {
      await small.stop();
    }
  });

  it('serves cluster-scoped kinds and label selectors', async () => {
    fake.seed('nodes', { metadata: { name: 'n1', labels: { role: 'worker' } } }, { metadata: { name: 'n2', labels: { role: 'control' } } });
    assert.equal(fake.get('nodes', undefined, 'n1')?.metadata?.namespace, undefined);
    const workers = await api.listNode({ labelSelector: 'role=worker' });
    assert.deepEqual(workers.items.map((n) => n.metadata!.name), ['n1']);

    const informer = makeInformer<V1Node>(kubeConfigFor(fake), '/api/v1/nodes', () => api.listNode({ labelSelector: 'role!=worker' }), 'role!=worker');
    await informer.start();
    try {
      fake.seed('nodes', { metadata: { name: 'n3', labels: { role: 'worker' } } }, { metadata: { name: 'n4' } });
      await until('n4 via watch', () => informer.get('n4') !== undefined);
      assert.deepEqual(informer.list().map((n) => n.metadata!.name).sort(), ['n2', 'n4']);
    } finally {
      await informer.stop();
    }
  });
});
