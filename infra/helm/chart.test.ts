// Renders the chart with Helm 3 for every value set in flowagg/ci/ and validates each manifest offline
// against the Kubernetes schemas; values that cannot work must fail at render with their message.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { serviceConfigSchema } from '../../app/service-config.js';
import { type Manifest, parseManifests, validateManifest } from './manifests.js';

const CHART = join(import.meta.dirname, 'flowagg');
const NAMESPACE = 'flow-aggregator';
const KUBE_VERSION = '1.31.0';

let helm: string;

/** `helm template` of the chart; the exit status and stderr, or the manifests. */
function render(args: string[]): { ok: true; manifests: Manifest[] } | { ok: false; stderr: string } {
  // A Helm built with go install assumes Kubernetes 1.20; the chart needs 1.25 or later.
  const r = spawnSync(helm, ['template', 'flowagg', CHART, '--namespace', NAMESPACE, '--kube-version', KUBE_VERSION, ...args], { encoding: 'utf8' });
  if (r.status !== 0) return { ok: false, stderr: r.stderr };
  return { ok: true, manifests: parseManifests(r.stdout) };
}

function renderOk(args: string[]): Manifest[] {
  const r = render(args);
  if (!r.ok) assert.fail(`helm template ${args.join(' ')} failed:\n${r.stderr}`);
  return r.manifests;
}

// Manifests are read as untyped JSON: the schemas, not these types, are what checks their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const find = (ms: Manifest[], kind: string, name: string): Json => ms.find((m) => m.kind === kind && m.metadata.name === name);
const names = (ms: Manifest[], kind: string) => ms.filter((m) => m.kind === kind).map((m) => m.metadata.name).sort();
const podSpec = (m: Json) => m?.spec?.template?.spec;

/** The flowagg configuration file the chart renders, parsed. */
function conf(ms: Manifest[]): Record<string, unknown> {
  const cm = find(ms, 'ConfigMap', 'flowagg-config');
  assert.ok(cm, 'the configuration ConfigMap');
  return parseYaml(cm.data['flow-aggregator.conf']!) as Record<string, unknown>;
}

describe('Helm chart', () => {
  before(() => {
    helm = execFileSync(join(import.meta.dirname, '../dev/helm'), { encoding: 'utf8' }).trim();
  });

  const valueSets = readdirSync(join(CHART, 'ci')).filter((f) => f.endsWith('-values.yaml')).sort();

  for (const file of valueSets) {
    it(`renders ${file} into manifests the Kubernetes schemas accept`, async () => {
      const manifests = renderOk(['-f', join(CHART, 'ci', file)]);
      assert.ok(manifests.length >= 10, `only ${manifests.length} manifests`);
      const problems = (await Promise.all(manifests.map(validateManifest))).flat();
      assert.deepEqual(problems, []);
      // The flowagg sections of the file must satisfy flowagg's own schema (Antrea's keys that no
      // service of this build defines yet are left out here; their owners validate them).
      const known = new Set(Object.keys(serviceConfigSchema.shape));
      const doc = Object.fromEntries(Object.entries(conf(manifests)).filter(([k]) => known.has(k)));
      const parsed = serviceConfigSchema.safeParse(doc);
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
    });
  }

  it('passes helm lint --strict with every value set', () => {
    for (const file of valueSets) {
      const r = spawnSync(helm, ['lint', CHART, '--strict', '--kube-version', KUBE_VERSION, '-f', join(CHART, 'ci', file)], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${file}:\n${r.stdout}${r.stderr}`);
    }
  });

  it('catches a manifest the schemas refuse', async () => {
    const [deployment] = renderOk([]).filter((m) => m.kind === 'Deployment');
    podSpec(deployment).containers[0].ports[0].containerPort = 'http';
    delete podSpec(deployment).containers[0].name;
    const problems = await validateManifest(deployment!);
    assert.ok(problems.some((p) => /containerPort must be integer/.test(p)), problems.join('\n'));
    assert.deepEqual(await validateManifest({ apiVersion: 'v9', kind: 'Pod', metadata: { name: 'x' } }), ['Pod/x: no schema for v9 Pod']);
  });

  it('defaults: ingest behind the flow-aggregator Service, one processor, the chart\'s Kafka, Antrea\'s configuration', () => {
    const ms = renderOk([]);
    assert.deepEqual(names(ms, 'Deployment'), ['flowagg-explorer', 'flowagg-ingest', 'flowagg-processor']);
    assert.deepEqual(names(ms, 'StatefulSet'), ['flowagg-kafka']);
    const svc = find(ms, 'Service', 'flow-aggregator');
    assert.deepEqual(svc.spec.ports.map((p: Json) => `${p.port}/${p.protocol}`), ['4739/TCP', '4739/UDP', '14739/TCP']);
    const ingest = podSpec(find(ms, 'Deployment', 'flowagg-ingest'));
    assert.deepEqual(ingest.containers[0].args, ['ingest', '--config', '/etc/flowagg/flow-aggregator.conf']);
    assert.deepEqual(ingest.containers[0].livenessProbe.httpGet, { path: '/healthz', port: 'api', scheme: 'HTTPS' });
    assert.deepEqual(ingest.containers[0].readinessProbe.httpGet, { path: '/readyz', port: 'api', scheme: 'HTTPS' });
    assert.equal(ingest.containers[0].ports[0].containerPort, 10348);
    // The loopback token goes where antctl reads it, in a volume the unprivileged user may write.
    assert.ok(ingest.containers[0].volumeMounts.some((m: Json) => m.name === 'apiserver' && m.mountPath === '/var/run/antrea'));
    assert.deepEqual(ingest.volumes.find((v: Json) => v.name === 'apiserver'), { name: 'apiserver', emptyDir: {} });
    assert.equal(find(ms, 'Deployment', 'flowagg-processor').spec.replicas, 1);
    const c = conf(ms);
    assert.equal(c.mode, 'Aggregate');
    assert.equal(c.activeFlowRecordTimeout, '60s');
    assert.deepEqual(c.log, { backend: 'kafka', kafka: { brokers: 'flowagg-kafka-0.flowagg-kafka-headless.flow-aggregator.svc:9092' }, topics: { flowsRawPartitions: 4, flowsProcessedPartitions: 4 } });
    assert.deepEqual(c.kubernetes, { antreaNamespace: 'kube-system' });
  });

  it("lets every component's API server delegate token reviews to Kubernetes (system:auth-delegator, as Antrea's)", () => {
    const binding = find(renderOk([]), 'ClusterRoleBinding', 'flowagg-flow-aggregator-auth-delegator');
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' });
    assert.deepEqual(binding.subjects.map((s: Json) => s.name), ['flowagg-ingest', 'flowagg-processor', 'flowagg-exporter']);
  });

  it('probes over plain HTTP when the configuration asks for it', () => {
    const ingest = podSpec(find(renderOk(['--set', 'config.apiServer.protocol=http']), 'Deployment', 'flowagg-ingest'));
    assert.equal(ingest.containers[0].livenessProbe.httpGet.scheme, 'HTTP');
  });

  it('grants the processor Pod, Node and Service reads and the cluster identity by name, and ingest its certificate objects', () => {
    const ms = renderOk([]);
    const rules = (kind: string, name: string) => find(ms, kind, name)?.rules;
    assert.deepEqual(rules('ClusterRole', 'flowagg-flow-aggregator-metadata'), [{ apiGroups: [''], resources: ['pods', 'nodes', 'services'], verbs: ['get', 'list', 'watch'] }]);
    const identity = find(ms, 'Role', 'flowagg-flow-aggregator-cluster-identity');
    assert.equal(identity?.metadata.namespace, 'kube-system');
    assert.deepEqual(rules('Role', 'flowagg-flow-aggregator-cluster-identity'), [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['antrea-cluster-identity'], verbs: ['get', 'list', 'watch'] }]);
    const certs = JSON.stringify(rules('Role', 'flowagg-ingest-certificates'));
    for (const name of ['flow-aggregator-ca-tls', 'flow-aggregator-client-tls', 'flow-aggregator-ca']) assert.ok(certs.includes(name), name);
    assert.equal(podSpec(find(ms, 'Deployment', 'flowagg-processor')).serviceAccountName, 'flowagg-processor');
  });

  it('proxy mode: an HPA instead of a replica count, and the exporter may read its TLS Secrets', () => {
    const ms = renderOk(['-f', join(CHART, 'ci', 'proxy-hpa-values.yaml')]);
    const hpa = find(ms, 'HorizontalPodAutoscaler', 'flowagg-processor');
    assert.deepEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas, hpa.spec.metrics[0].resource.target.averageUtilization], [2, 6, 70]);
    assert.equal(find(ms, 'Deployment', 'flowagg-processor').spec.replicas, undefined);
    assert.deepEqual(find(ms, 'Role', 'flowagg-exporter-tls').rules[0].resourceNames, ['collector-ca', 'collector-client']);
    assert.deepEqual(podSpec(find(ms, 'Deployment', 'flowagg-export-ipfix')).containers[0].args, ['export', 'ipfix', '--config', '/etc/flowagg/flow-aggregator.conf']);
    assert.equal(conf(ms).mode, 'Proxy');
  });

  it('one Deployment per enabled exporter, ClickHouse with its Secret, an existing Kafka, overrides kept', () => {
    const ms = renderOk(['-f', join(CHART, 'ci', 'all-exporters-values.yaml')]);
    assert.deepEqual(names(ms, 'Deployment'), ['flowagg-explorer', 'flowagg-export-clickhouse', 'flowagg-export-flowlog', 'flowagg-export-ipfix', 'flowagg-export-s3', 'flowagg-ingest', 'flowagg-processor']);
    assert.ok(find(ms, 'StatefulSet', 'flowagg-clickhouse'));
    assert.ok(find(ms, 'Secret', 'clickhouse-secret'));
    const ch = podSpec(find(ms, 'Deployment', 'flowagg-export-clickhouse'));
    assert.deepEqual(ch.containers[0].env.filter((e: Json) => e.name.startsWith('CH_')).map((e: Json) => e.name), ['CH_USERNAME', 'CH_PASSWORD']);
    assert.ok(ch.containers[0].volumeMounts.some((v: Json) => v.mountPath === '/etc/flow-aggregator/certs/clickhouse'));
    assert.deepEqual(ch.containers[0].command, ['node', '/app/bin/flowagg.js']);
    assert.equal(ch.containers[0].image, 'registry.example/flowagg:0.1.0-rc1');
    const c: Json = conf(ms);
    assert.equal(c.clickHouse.databaseURL, 'tcp://flowagg-clickhouse.flow-aggregator.svc:9000');
    assert.deepEqual(c.aggregatorTransportProtocol, ['udp', 'tcp']);
    assert.deepEqual(c.kubernetes, { antreaNamespace: 'antrea' });
    assert.ok(find(ms, 'Service', 'flowagg'));

    const external = renderOk(['-f', join(CHART, 'ci', 'aggregate-scaled-values.yaml')]);
    assert.equal(find(external, 'StatefulSet', 'flowagg-kafka'), undefined);
    assert.equal((conf(external) as Json).log.kafka.brokers, 'kafka-0.kafka:9092,kafka-1.kafka:9092');
  });

  it('the flow explorer: one replica of `flowagg explore` behind its own Service on the API port, off with explorer.enable: false', () => {
    const ms = renderOk([]);
    const explorer = find(ms, 'Deployment', 'flowagg-explorer');
    assert.equal(explorer.spec.replicas, 1);
    assert.deepEqual(podSpec(explorer).containers[0].args, ['explore', '--config', '/etc/flowagg/flow-aggregator.conf']);
    assert.deepEqual(find(ms, 'Service', 'flowagg-explorer').spec.ports.map((p: Json) => [p.port, p.targetPort]), [[10348, 'http']]);
    const off = renderOk(['--set', 'config.explorer.enable=false']);
    assert.equal(find(off, 'Deployment', 'flowagg-explorer'), undefined);
    assert.equal(find(off, 'Service', 'flowagg-explorer'), undefined);
  });

  it('replay: a suspended CronJob that resets the processor group on flows.raw', () => {
    const cron = find(renderOk(['--set', 'replay.to={--to-datetime,2026-11-30T10:00:00Z}']), 'CronJob', 'flowagg-replay');
    assert.equal(cron.spec.suspend, true);
    assert.deepEqual(cron.spec.jobTemplate.spec.template.spec.containers[0].args, [
      'offsets', 'reset', '--brokers', 'flowagg-kafka-0.flowagg-kafka-headless.flow-aggregator.svc:9092', '--group', 'flowagg-processor', '--topic', 'flows.raw', '--to-datetime', '2026-11-30T10:00:00Z',
    ]);
  });

  const refused: [string, string[], RegExp][] = [
    ['more Aggregate replicas than partitions', ['--set', 'processor.replicas=5'], /processor\.replicas is 5 but config\.log\.topics\.flowsRawPartitions is 4: in Aggregate mode .* at most 4 replicas/],
    ['an HPA in Aggregate mode', ['--set', 'processor.autoscaling.enabled=true'], /processor\.autoscaling\.enabled works in Proxy mode only/],
    ['an unknown mode', ['--set', 'mode=Correlate'], /mode must be Aggregate or Proxy, not "Correlate"/],
    ['no Kafka at all', ['--set', 'kafka.enabled=false'], /set kafka\.enabled=true .* or kafka\.bootstrapServers/],
    ['two Kafkas', ['--set', 'kafka.bootstrapServers=k:9092'], /set one of them/],
    ['the embedded log', ['--set', 'config.log.backend=embedded'], /config\.log\.backend is "embedded", but the chart runs ingest, the processor and the exporters as separate Deployments/],
    ['an HPA whose minimum is above its maximum', ['--set', 'mode=Proxy', '--set', 'processor.autoscaling.enabled=true', '--set', 'processor.autoscaling.minReplicas=5', '--set', 'processor.autoscaling.maxReplicas=2'], /minReplicas \(5\) is above maxReplicas \(2\)/],
    ['ClickHouse nobody writes to', ['--set', 'clickhouse.enabled=true'], /config\.clickHouse\.enable is false, so nothing would write to it/],
  ];
  for (const [what, args, message] of refused) {
    it(`refuses ${what}, saying why`, () => {
      const r = render(args);
      assert.equal(r.ok, false, `rendered although ${what}`);
      if (!r.ok) assert.match(r.stderr, message);
    });
  }
});
