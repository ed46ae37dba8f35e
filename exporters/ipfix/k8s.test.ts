// The IPFIX exporter's Kubernetes reads against the fake API server: the cluster UUID that names the
// observation domain and the clusterId, and the TLS Secrets Antrea's keys name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { observationDomainIdOf } from '../../lib/k8s/cluster-identity.js';
import { FakeKubeApiServer, kubeConfigFor } from '../../lib/k8s/testing/fake-api-server.js';
import { startTcpCollector } from '../../integration-tests/harness/collector.js';
import { numberedRecord } from '../testing/records.js';
import { kubernetesReads } from './k8s.js';
import { batchOf, decodeCollected, ipfixExporter } from './testing/exporter.js';

const UUID = '4b2f8c1e-0d3a-4e5f-9a6b-7c8d9e0f1a2b';

test('the cluster UUID from antrea-cluster-identity gives the observation domain id and clusterId; Secrets are read from the Pod namespace', async (t) => {
  const fake = await FakeKubeApiServer.start();
  t.after(() => fake.stop());
  fake.seed('configmaps', { metadata: { name: 'antrea-cluster-identity', namespace: 'kube-system' }, data: { uuid: UUID } });
  fake.seed('secrets', { metadata: { name: 'collector-ca', namespace: 'flow-aggregator' }, data: { 'ca.crt': Buffer.from('PEM').toString('base64') } });
  const reads = await kubernetesReads(kubeConfigFor(fake), 'kube-system', 'flow-aggregator');
  assert.deepEqual(await reads.readSecret('collector-ca'), { 'ca.crt': Buffer.from('PEM') });
  assert.equal(await reads.readSecret('missing'), undefined);

  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const exporter = ipfixExporter({ address: `127.0.0.1:${collector.port}` }, {}, { clusterUuid: reads.clusterUuid });
  await exporter.start();
  await exporter.deliver(batchOf([numberedRecord(1)]), new AbortController().signal);
  await collector.waitForMessages(1, 10_000);
  await exporter.stop();
  const got = decodeCollected(collector.messages);
  assert.equal(got.headers[0]!.observationDomainId, observationDomainIdOf(UUID));
  assert.equal(got.records[0]!.clusterId, UUID);
});
