// Kubernetes metadata (lib/k8s): Pod lookups by IP and time, which the processor makes for up to two
// sides of every record, and memory per Pod, in the store and in the informer's cache once its objects
// are trimmed (lib/k8s/informers/convert.ts) against the objects as the API server sends them.
import type { V1Pod } from '@kubernetes/client-node';
import { podObject, trimPod } from '../lib/k8s/informers/convert.js';
import { ipv4Number } from '../lib/k8s/ip.js';
import { MetadataStore } from '../lib/k8s/store/metadata-store.js';
import type { Benchmark } from './types.js';

const PODS = 100_000;
const T0 = Date.UTC(2026, 10, 30);

const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** A Pod as a kubelet-managed Deployment Pod looks on the wire (managedFields, annotations, a container). */
function apiPod(i: number): V1Pod {
  const name = `web-7d9f8c6b5-${i.toString(36).padStart(5, 'x')}`;
  return {
    metadata: {
      name,
      namespace: `team-${i % 50}`,
      uid: `8d0f4a1e-7c1b-4b5e-9a51-${i.toString(16).padStart(12, '0')}`,
      resourceVersion: String(1_000_000 + i),
      creationTimestamp: new Date(T0) as unknown as Date,
      labels: { app: 'web', 'pod-template-hash': '7d9f8c6b5', tier: 'frontend' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-29T10:00:00Z', 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9f8c6b5', uid: 'a1b2c3d4-0000-4000-8000-000000000000', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} }, 'f:ownerReferences': {} }, 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} } } } } },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:containerStatuses': {}, 'f:hostIP': {}, 'f:phase': {}, 'f:podIP': {}, 'f:podIPs': {}, 'f:startTime': {} } } },
      ],
    },
    spec: {
      nodeName: `node-${i % 500}`,
      containers: [{ name: 'web', image: 'registry.example/web:1.27.3', ports: [{ containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '128Mi' } }, env: [{ name: 'MODE', value: 'prod' }] }],
      serviceAccountName: 'default',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: {
      phase: 'Running',
      podIP: ipOf(i),
      podIPs: [{ ip: ipOf(i) }, ...(i % 2 === 0 ? [{ ip: `fd00:10:244::${i.toString(16)}` }] : [])],
      hostIP: `172.18.${(i >> 8) & 255}.${i & 255}`,
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }, { type: 'PodScheduled', status: 'True' }],
      containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'registry.example/web:1.27.3', imageID: 'registry.example/web@sha256:'.padEnd(96, 'a'), containerID: 'containerd://'.padEnd(77, 'b'), started: true, state: { running: {} } } as never],
    },
  };
}

/**
 * Operations per second of CPU time this process got, not of wall time: on a shared machine the wall
 * clock counts other people's work too (measure() in types.ts is the wall-clock figure).
 */
function perCpuSecond(fn: () => void, opsPerCall: number, minCpuMs = 2000): number {
  for (let i = 0; i < 5; i++) fn();
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.cpuUsage();
  let calls = 0;
  let usedMs = 0;
  while (usedMs < minCpuMs) {
    fn();
    calls++;
    const d = process.cpuUsage(start);
    usedMs = (d.user + d.system) / 1000;
  }
  return (calls * opsPerCall * 1000) / usedMs;
}

function heapBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** Heap bytes per object that `make` creates, with `count` of them alive. */
function bytesPer<T>(count: number, make: (i: number) => T): number {
  const before = heapBytes();
  const kept = Array.from({ length: count }, (_, i) => make(i));
  const after = heapBytes();
  if (kept.length !== count) throw new Error('unreachable');
  return (after - before) / count;
}

const bench: Benchmark = (log) => {
  const store = new MetadataStore();
  const before = heapBytes();
  for (let i = 0; i < PODS; i++) {
    const pod = apiPod(i);
    store.apply({ type: 'upsert', object: podObject(pod, T0), timeMs: T0 });
  }
  const storeBytes = (heapBytes() - before) / PODS;
  log(`${PODS} Pods in the store, ${store.counts('Pod').live} live`);

  // A tenth of the Pods deleted and their IPs reused, so lookups also choose between two lifetimes.
  for (let i = 0; i < PODS; i += 10) {
    const old = podObject(apiPod(i), T0);
    store.apply({ type: 'delete', object: old, timeMs: T0 + 60_000 });
    const reused = apiPod(i);
    reused.metadata!.uid = `9e1a5b2f-8d2c-4c6f-8b62-${i.toString(16).padStart(12, '0')}`;
    reused.metadata!.name = `${reused.metadata!.name}-new`;
    reused.metadata!.creationTimestamp = new Date(T0 + 120_000) as unknown as Date;
    store.apply({ type: 'upsert', object: podObject(reused, T0 + 120_000), timeMs: T0 + 120_000 });
  }
  const ips = Array.from({ length: 65_536 }, (_, k) => ipOf((k * 7919) % PODS));
  let found = 0;
  const hits = perCpuSecond(() => {
    for (let k = 0; k < ips.length; k++) if (store.podByIp(ips[k]!, T0 + 30_000) !== undefined) found++;
  }, ips.length);
  const numbers = ips.map((ip) => ipv4Number(ip)!);
  const hitsByNumber = perCpuSecond(() => {
    for (let k = 0; k < numbers.length; k++) if (store.podByIpv4(numbers[k]!, T0 + 30_000) !== undefined) found++;
  }, numbers.length);
  const outside = ips.map((_, k) => `192.0.${(k >> 8) & 255}.${k & 255}`);
  const misses = perCpuSecond(() => {
    for (let k = 0; k < outside.length; k++) if (store.podByIp(outside[k]!, T0) !== undefined) found++;
  }, outside.length);
  log(`found ${found}`);

  const full = bytesPer(20_000, apiPod);
  const trimmed = bytesPer(20_000, (i) => {
    const p = apiPod(i);
    trimPod(p);
    return p;
  });
  return Promise.resolve([
    { name: 'k8s podByIp, found (100,000 Pods, 10% with a reused IP)', value: hits, unit: 'lookups per CPU-second', note: 'the processor makes up to 2 per record; IPv4 text' },
    { name: 'k8s podByIpv4, found (the same, from the address as a number)', value: hitsByNumber, unit: 'lookups per CPU-second', note: 'for callers holding the record\'s 4 bytes' },
    { name: 'k8s podByIp, not found', value: misses, unit: 'lookups per CPU-second' },
    { name: 'k8s store heap per Pod', value: storeBytes, unit: 'bytes', note: 'PodInfo, labels JSON, IP index; half the Pods dual-stack' },
    { name: 'k8s informer cache per Pod, as sent by the API server', value: full, unit: 'bytes' },
    { name: 'k8s informer cache per Pod, trimmed', value: trimmed, unit: 'bytes', note: 'what ListWatch keeps after convert.ts cuts each object' },
  ]);
};

export default bench;
