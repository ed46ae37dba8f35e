import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tlsSection } from './config.js';
import { resolveMode, resolveNamespace, serverNames } from './index.js';

describe('TLS configuration', () => {
  it("defaults to Antrea's validity, rotation threshold and check interval", () => {
    const c = tlsSection.parse(undefined);
    assert.equal(c.validity, 365 * 86_400_000);
    assert.equal(c.renewBefore, 90 * 86_400_000);
    assert.equal(c.checkInterval, 3_600_000);
    assert.equal(c.minVersion, 'TLSv1.2');
    assert.equal(tlsSection.parse({ renewBefore: '720h' }).renewBefore, 30 * 86_400_000);
  });

  it('runs in Kubernetes mode inside a Pod and in directory mode outside, unless told', () => {
    const c = tlsSection.parse({});
    assert.equal(resolveMode(c, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), 'k8s');
    assert.equal(resolveMode(c, {}), 'directory');
    assert.equal(resolveMode(tlsSection.parse({ mode: 'directory' }), { KUBERNETES_SERVICE_HOST: '10.96.0.1' }), 'directory');
  });

  it('takes the namespace from the config, then POD_NAMESPACE, then flow-aggregator', () => {
    assert.equal(resolveNamespace(tlsSection.parse({ namespace: 'x' }), { POD_NAMESPACE: 'y' }), 'x');
    assert.equal(resolveNamespace(tlsSection.parse({}), { POD_NAMESPACE: 'y' }), 'y');
    assert.equal(resolveNamespace(tlsSection.parse({}), {}), 'flow-aggregator');
  });

  it('names the server after the Service, flowAggregatorAddress (own key first, then the top-level one) and the extras', () => {
    assert.deepEqual(serverNames(tlsSection.parse({}), 'fa', ''), ['flow-aggregator.fa.svc']);
    assert.deepEqual(serverNames(tlsSection.parse({ extraSANs: ['localhost', 'flow-aggregator.fa.svc'] }), 'fa', '10.0.0.1'), ['flow-aggregator.fa.svc', '10.0.0.1', 'localhost']);
    assert.deepEqual(serverNames(tlsSection.parse({ flowAggregatorAddress: 'fa.example.org' }), 'fa', '10.0.0.1'), ['flow-aggregator.fa.svc', 'fa.example.org']);
  });

  it('rejects incomplete files mode, a threshold longer than the validity, and unknown keys', () => {
    const issues = (input: unknown) => tlsSection.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    assert.deepEqual(issues({ mode: 'files', certFile: '/c' }), ['keyFile: keyFile is required when mode is "files"', 'caFile: caFile is required when mode is "files"']);
    assert.deepEqual(issues({ validity: '720h', renewBefore: '2160h' }), ['renewBefore: renewBefore must be shorter than validity, or every check would reissue']);
    assert.equal(issues({ secretName: 'x' }).length, 1);
  });
});
