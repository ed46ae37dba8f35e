import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { registry } from '../../telemetry/metrics.js';
import { FakeKubeApiServer, kubeConfigFor } from '../testing/fake-api-server.js';
import { InformerMetadataSource, type InformerSourceOptions } from './source.js';
import { until } from '../../testing/until.js';

const MIN = 60_000;
const UUID = '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00';

function podBody(name: string, ips: string[], opts: { namespace?: string; phase?: string; hostNetwork?: boolean; labels?: Record<string, string> } = {}): V1Pod {
  return {
    metadata: { name, namespace: opts.namespace ?? 'apps', labels: opts.labels ?? { app: name }, managedFields: [{ manager: 'kubelet', operation: 'Update' }] },
    spec: { nodeName: 'node-a', hostNetwork: opts.hostNetwork ?? false, containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: opts.phase ?? 'Running', podIPs: ips.map((ip) => ({ ip })) },
  };
}

describe('InformerMetadataSource against the fake API server', () => {
  let fake: FakeKubeApiServer;
  let api: CoreV1Api;
  before(async () => {
    fake = await FakeKubeApiServer.start();
    api = kubeConfigFor(fake).makeApiClient(CoreV1Api);
  });
  after(() => fake.stop());

  let clock = Date.now();
  const open = (extra: Partial<InformerSourceOptions> = {}) =>
    new InformerMetadataSource({
      kubeConfig: kubeConfigFor(fake),
      antreaNamespace: 'kube-system',
      syncTimeoutMs: 60_000,
      now: () => clock,
      restart: { initialMs: 20, maxMs: 200 },
      expiryIntervalMs: 20,
      store: { deletedRetentionMs: 5 * MIN, clockSkewToleranceMs: 0 },
      ...extra,
    });

  it('lists Pods, Nodes, Services and the cluster identity, then follows the watch, time-aware', async () => {
    fake.seed('pods', podBody('web-1', ['10.244.1.5', 'FD00:10:244:1::5'], { labels: { tier: 'front', app: 'web' } }), podBody('node-agent', ['172.18.0.2'], { hostNetwork: true }));
    fake.seed('nodes', { metadata: { name: 'node-a' } });
    fake.seed('services', { metadata: { name: 'web', namespace: 'apps' } });
    fake.seed('configmaps', { metadata: { name: 'antrea-cluster-identity', namespace: 'kube-system' }, data: { uuid: UUID } });
    clock = Date.now() + 1000; // after the fake's creation timestamps
    const source = open();
    try {
      await source.ready();
      assert.deepEqual(source.readiness(), { ready: true });
      const web = source.podByIp('10.244.1.5', clock);
      assert.equal(web?.name, 'web-1');
      assert.equal(web?.labelsJson, '{"app":"web","tier":"front"}');
      assert.equal(web?.uid, fake.get('pods', 'apps', 'web-1')?.metadata?.uid);
      assert.equal(source.podByIp('fd00:10:244:1::5', clock)?.name, 'web-1', 'IPv6 in canonical text');
      assert.equal(source.podByIp('172.18.0.2', clock), undefined, 'hostNetwork Pods share the Node IP and are left out');
      assert.equal(source.nodeByName('node-a')?.uid, fake.get('nodes', undefined, 'node-a')?.metadata?.uid);
      assert.equal(source.serviceByName('apps', 'web')?.uid, fake.get('services', 'apps', 'web')?.metadata?.uid);
      assert.equal(source.clusterUuid(), UUID);

      // web-1 is deleted; a Pod created afterwards, Pending and without an IP, later gets web-1's IP.
      const deletedAt = (clock += MIN);
      fake.remove('pods', 'apps', 'web-1');
      await until('delete of web-1', () => source.stats().pods!.synced && source.podByIp('10.244.1.5', deletedAt) === undefined);
      const createdAt = (clock += MIN);
      const [pending] = fake.seed('pods', podBody('web-2', [], { phase: 'Pending' }));
      await until('web-2 seen', () => source.objectCounts().Pod.live === 1);
      clock += 1000;
      await api.replaceNamespacedPod({ name: 'web-2', namespace: 'apps', body: { ...pending!, status: { phase: 'Running', podIPs: [{ ip: '10.244.1.5' }] } } });
      await until('web-2 gets the IP', () => source.podByIp('10.244.1.5', createdAt + 5000)?.name === 'web-2');
      assert.equal(source.podByIp('10.244.1.5', deletedAt - 1)?.name, 'web-1', 'just before its deletion, the IP was web-1\'s');
      assert.equal(source.podByIp('10.244.1.5', deletedAt + 1), undefined, 'just after it, nobody had it');
      assert.equal(source.podByIp('10.244.1.5', createdAt)?.name, 'web-2', 'a Pod first seen Pending exists from when it was seen');

      clock = deletedAt + 5 * MIN;
      await until('web-1 forgotten 5 minutes after its deletion', () => source.objectCounts().Pod.deleted === 0);
      assert.equal(source.podByIp('10.244.1.5', deletedAt - 1), undefined);
      assert.equal(source.podByIp('10.244.1.5', createdAt + 1)?.name, 'web-2');
      assert.equal(await metric('flowagg_k8s_objects', 'kind="Pod",state="live"'), 1);
      assert.ok((await metric('flowagg_k8s_pod_lookups_total', 'result="hit"')) > 0);
    } finally {
      await source.close();
    }
  });

  it('resumes a watch the server ended from its resourceVersion, without relisting', async () => {
    const source = open();
    try {
      await source.ready();
      await until('pods watch registered', () => fake.openWatches('pods') === 1);
      const lists = fake.count({ method: 'GET', plural: 'pods', watch: false });
      const rv = String(fake.resourceVersion);
      fake.closeWatches();
      await until('pods watch reopened', () => source.stats().pods!.watchRestarts >= 1 && fake.openWatches('pods') === 1);
      fake.seed('pods', podBody('late', ['10.244.2.9']));
      await until('event after the rewatch', () => source.podByIp('10.244.2.9', clock)?.name === 'late');
      const rewatch = fake.requests.filter((r) => r.watch && r.plural === 'pods').at(-1);
      assert.equal(rewatch?.query.resourceVersion, rv);
      assert.equal(fake.count({ method: 'GET', plural: 'pods', watch: false }), lists, 'no relist');
      assert.equal(source.stats().pods!.relists, 0);
    } finally {
      await source.close();
    }
  });

  it('relists after 410 Gone and sees a deletion it missed', async () => {
    fake.seed('pods', podBody('gone-soon', ['10.244.3.3']));
    const source = open();
    try {
      await source.ready();
      assert.equal(source.podByIp('10.244.3.3', clock)?.name, 'gone-soon');
      await until('pods watch registered', () => fake.openWatches('pods') === 1);
      fake.closeWatches();
      const deletedAt = (clock += 1000);
      fake.remove('pods', 'apps', 'gone-soon');
      fake.compact(); // the deletion event is forgotten: only a relist shows it
      await until('relist', () => source.stats().pods!.relists === 1);
      await until('deletion seen through the relist', () => source.podByIp('10.244.3.3', deletedAt) === undefined);
      assert.equal(source.podByIp('10.244.3.3', deletedAt - 1)?.name, 'gone-soon', 'kept for late records');
      assert.equal(fake.requests.filter((r) => r.watch && r.plural === 'pods').some((r) => r.status === 410), true);
    } finally {
      await source.close();
    }
  });

  it('restarts after errors with backoff, reporting the failure until it recovers', async () => {
    const source = open();
    try {
      await source.ready();
      await until('services watch registered', () => fake.openWatches('services') === 1);
      let failures = 3;
      fake.intercept((req) => (req.plural === 'services' && failures > 0 && failures-- > 0 ? { code: 500, reason: 'InternalError', message: 'etcd is down' } : undefined));
      fake.closeWatches();
      await until('three failures', () => source.stats().services!.errors >= 3);
      fake.seed('services', { metadata: { name: 'after-outage', namespace: 'apps' } });
      await until('service after the outage', () => source.serviceByName('apps', 'after-outage') !== undefined);
      await until('failure cleared', () => source.stats().services!.failing === undefined);
      assert.ok((await metric('flowagg_k8s_watch_errors_total', 'kind="services"')) >= 3);
      assert.deepEqual(source.readiness(), { ready: true });
    } finally {
      await source.close();
    }
  });

  it('goes on after the sync timeout, and says in its readiness what it is waiting for', async () => {
    let release!: () => void;
    const held = new Promise<undefined>((resolve) => (release = () => resolve(undefined)));
    fake.intercept((req) => (req.plural === 'nodes' && !req.watch ? held : undefined));
    const source = open({ syncTimeoutMs: 200 });
    try {
      await source.ready(); // resolves at the timeout although nodes never listed
      const r = source.readiness();
      assert.equal(r.ready, false);
      // Nodes are held back, so they are missing whatever else a busy machine has not listed yet.
      assert.match(r.detail ?? '', /waiting for the first list of .*nodes/);
      release();
      await until('nodes listed', () => source.readiness().ready);
    } finally {
      release();
      await source.close();
    }
  });

  it('follows the cluster identity ConfigMap, ignoring a value that is not a UUID', async () => {
    const source = open({ antreaNamespace: 'antrea' });
    try {
      await source.ready();
      assert.equal(source.clusterUuid(), undefined, 'no ConfigMap in that namespace yet');
      const [cm] = fake.seed('configmaps', { metadata: { name: 'antrea-cluster-identity', namespace: 'antrea' }, data: { uuid: 'not-a-uuid' } });
      fake.seed('configmaps', { metadata: { name: 'other', namespace: 'antrea' }, data: { uuid: UUID } });
      await until('identity watch registered', () => fake.openWatches('configmaps') === 1);
      await api.replaceNamespacedConfigMap({ name: 'antrea-cluster-identity', namespace: 'antrea', body: { ...cm!, data: { uuid: UUID.toUpperCase() } } });
      await until('UUID', () => source.clusterUuid() === UUID);
      fake.remove('configmaps', 'antrea', 'antrea-cluster-identity');
      await until('UUID gone', () => source.clusterUuid() === undefined);
    } finally {
      await source.close();
    }
  });
});

/** A sample's value from the process registry (NaN when absent). */
async function metric(name: string, labels: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}
