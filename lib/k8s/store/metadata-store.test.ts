import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetadataStore } from './metadata-store.js';
import { node, pod, remove, service, upsert } from './testing/events.js';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

function store(clockSkewToleranceMs = 5000): MetadataStore {
  return new MetadataStore({ deletedRetentionMs: 5 * MIN, clockSkewToleranceMs });
}

describe('MetadataStore', () => {
  it('finds the Pod that had an IP at a time when a deleted Pod\'s IP is reused', () => {
    const s = store();
    const a = pod('a', ['10.0.0.5'], { createdMs: T0 });
    const b = pod('b', ['10.0.0.5'], { createdMs: T0 + 2 * MIN });
    s.apply(upsert(a, T0));
    const deletedAt = T0 + MIN;
    s.apply(remove(a, deletedAt));
    s.apply(upsert(b, T0 + 2 * MIN));

    assert.equal(s.podByIp('10.0.0.5', deletedAt - 1)?.name, 'a', 'just before the deletion');
    assert.equal(s.podByIp('10.0.0.5', deletedAt + 1000)?.name, 'a', 'just after: within the clock-skew tolerance');
    assert.equal(s.podByIp('10.0.0.5', deletedAt + 30_000), undefined, 'between the two Pods nobody had it');
    assert.equal(s.podByIp('10.0.0.5', T0 + 2 * MIN + 1)?.name, 'b', 'just after the new Pod was created');
    assert.equal(s.podByIp('10.0.0.5', T0 - 10_000), undefined, 'before the first Pod existed');

    s.expire(deletedAt + 5 * MIN - 1);
    assert.equal(s.podByIp('10.0.0.5', deletedAt - 1)?.name, 'a', 'kept until 5 minutes after its deletion');
    assert.deepEqual(s.counts('Pod'), { live: 1, deleted: 1 });
    s.expire(deletedAt + 5 * MIN);
    assert.equal(s.podByIp('10.0.0.5', deletedAt - 1), undefined, 'forgotten 5 minutes after its deletion');
    assert.equal(s.podByIp('10.0.0.5', T0 + 3 * MIN)?.name, 'b');
    assert.equal(s.podByIpv4(0x0a000005, T0 + 3 * MIN)?.name, 'b', 'the same lookup from the address as a number');
    assert.equal(s.podByIpv4(0x0a000006, T0 + 3 * MIN), undefined);
    assert.deepEqual(s.counts('Pod'), { live: 1, deleted: 0 });
  });

  it('prefers the Pod created last when two lifetimes overlap, and the exact span over a near one', () => {
    const s = store();
    s.apply(upsert(pod('old', ['10.0.0.7'], { createdMs: T0 }), T0));
    s.apply(upsert(pod('new', ['10.0.0.7'], { createdMs: T0 + 10_000 }), T0 + 10_000));
    s.apply(remove(pod('old', ['10.0.0.7']), T0 + 20_000)); // its deletion was seen after the new Pod appeared
    assert.equal(s.podByIp('10.0.0.7', T0 + 5000)?.name, 'old');
    assert.equal(s.podByIp('10.0.0.7', T0 + 15_000)?.name, 'new');
    // 2 s before "new" was created: "old" contains the time exactly, "new" only within tolerance.
    assert.equal(s.podByIp('10.0.0.7', T0 + 8000)?.name, 'old');
    assert.equal(store(0).podByIp('10.0.0.7', T0), undefined);
  });

  it('uses a strict lifetime when the tolerance is 0', () => {
    const s = store(0);
    s.apply(upsert(pod('p', ['10.0.0.9'], { createdMs: T0 }), T0));
    assert.equal(s.podByIp('10.0.0.9', T0 - 1), undefined);
    assert.equal(s.podByIp('10.0.0.9', T0)?.name, 'p');
    s.apply(remove(pod('p', ['10.0.0.9']), T0 + 1000));
    assert.equal(s.podByIp('10.0.0.9', T0 + 999)?.name, 'p');
    assert.equal(s.podByIp('10.0.0.9', T0 + 1000), undefined);
    assert.equal(s.podHits, 2);
    assert.equal(s.podMisses, 2);
  });

  it('indexes both IP families, follows IPs assigned by an update, and keeps the creation time', () => {
    const s = store(0);
    s.apply(upsert(pod('dual', [], { createdMs: T0 }), T0));
    assert.equal(s.podByIp('10.1.0.1', T0 + 1), undefined);
    s.apply(upsert(pod('dual', ['10.1.0.1', 'fd00::1'], { createdMs: T0 + 50_000 }), T0 + 1000));
    assert.equal(s.podByIp('10.1.0.1', T0 + 1)?.name, 'dual', 'creation time from the first event');
    assert.equal(s.podByIp('fd00::1', T0 + 1)?.name, 'dual');
    s.apply(upsert(pod('dual', ['10.1.0.2']), T0 + 2000));
    assert.equal(s.podByIp('10.1.0.1', T0 + 3000), undefined, 'an IP the Pod no longer has');
    assert.equal(s.podByIp('10.1.0.2', T0 + 3000)?.name, 'dual');
    assert.deepEqual(s.counts('Pod'), { live: 1, deleted: 0 });
  });

  it('leaves hostNetwork Pods out: they share the Node IP', () => {
    const s = store();
    s.apply(upsert(pod('node-exporter', ['192.168.1.10'], { hostNetwork: true }), T0));
    s.apply(upsert(pod('kube-proxy', ['192.168.1.10'], { hostNetwork: true }), T0));
    assert.equal(s.podByIp('192.168.1.10', T0 + 1), undefined);
    s.apply(remove(pod('kube-proxy', ['192.168.1.10'], { hostNetwork: true }), T0 + 1));
    assert.deepEqual(s.counts('Pod'), { live: 0, deleted: 0 });
  });

  it('treats a new UID under a known name as a replacement of the old object', () => {
    const s = store(0);
    s.apply(upsert(pod('web-0', ['10.0.0.1'], { uid: 'u1', createdMs: T0 }), T0));
    s.apply(upsert(pod('web-0', ['10.0.0.2'], { uid: 'u2', createdMs: T0 + 1000 }), T0 + 1000));
    assert.deepEqual(s.counts('Pod'), { live: 1, deleted: 1 });
    assert.equal(s.podByIp('10.0.0.1', T0 + 500)?.uid, 'u1');
    assert.equal(s.podByIp('10.0.0.1', T0 + 1500), undefined);
    assert.equal(s.podByIp('10.0.0.2', T0 + 1500)?.uid, 'u2');
  });

  it('answers Nodes and Services by name, keeping deleted ones for the retention', () => {
    const s = store();
    s.apply(upsert(node('n1'), T0));
    s.apply(upsert(service('prod', 'web'), T0));
    assert.equal(s.nodeByName('n1')?.uid, 'uid-n1');
    assert.equal(s.serviceByName('prod', 'web')?.uid, 'uid-prod-web');
    assert.equal(s.serviceByName('prod', 'other'), undefined);
    s.apply(remove(node('n1'), T0 + 1000));
    s.apply(remove(service('prod', 'web'), T0 + 1000));
    assert.equal(s.nodeByName('n1')?.uid, 'uid-n1');
    s.apply(upsert(node('n1', 'uid-n1-again'), T0 + 2000));
    assert.equal(s.nodeByName('n1')?.uid, 'uid-n1-again', 'the live Node wins over the deleted one');
    s.expire(T0 + 1000 + 5 * MIN);
    assert.equal(s.serviceByName('prod', 'web'), undefined);
    assert.equal(s.nodeByName('n1')?.uid, 'uid-n1-again');
    assert.deepEqual(s.counts('Node'), { live: 1, deleted: 0 });
  });

  it('holds the cluster UUID it was last told', () => {
    const s = store();
    assert.equal(s.clusterUuid(), undefined);
    s.apply({ type: 'clusterUuid', uuid: '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00' });
    assert.equal(s.clusterUuid(), '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00');
    s.apply({ type: 'clusterUuid', uuid: undefined });
    assert.equal(s.clusterUuid(), undefined);
  });

  it('stays bounded under churn: every deleted object is gone once the retention has passed', () => {
    const s = store();
    for (let i = 0; i < 20_000; i++) {
      const p = pod(`p${i}`, [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`], { createdMs: T0 + i });
      s.apply(upsert(p, T0 + i));
      s.apply(remove(p, T0 + i + 1));
      if (i % 1000 === 0) s.expire(T0 + i);
    }
    assert.ok(s.counts('Pod').deleted > 0);
    s.expire(T0 + 20_001 + 5 * MIN);
    assert.deepEqual(s.counts('Pod'), { live: 0, deleted: 0 });
    assert.equal(s.podByIp('10.0.0.1', T0 + 1), undefined);
  });

  it('returns the same PodInfo object each time, labels rendered once as Antrea does', () => {
    const s = store();
    s.apply(upsert(pod('l', ['10.9.9.9'], { labels: { zone: 'a', app: 'web' } }), T0));
    s.apply(upsert(pod('none', ['10.9.9.8']), T0));
    const first = s.podByIp('10.9.9.9', T0);
    assert.equal(first, s.podByIp('10.9.9.9', T0));
    assert.equal(first?.labelsJson, '{"app":"web","zone":"a"}');
    assert.equal(s.podByIp('10.9.9.8', T0)?.labelsJson, '{}');
  });
});
