import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isFlowaggError } from '../errors.js';
import { K8S_ERR } from './errors.js';
import { InventoryMetadataSource } from './inventory.js';

const UID_A = '8d0f4a1e-7c1b-4b5e-9a51-0c2e3f4a5b6c';
const UID_B = '9e1a5b2f-8d2c-4c6f-8b62-1d3f4a5b6c7d';

function writeInventory(text: string, ext = 'yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'inventory-')), `inventory.${ext}`);
  writeFileSync(file, text);
  return file;
}

/** The message of the error `fn` throws, asserting its code. */
function problems(fn: () => unknown, code: string = K8S_ERR.INVENTORY_INVALID): string {
  try {
    fn();
  } catch (err) {
    assert.ok(isFlowaggError(err, code as typeof K8S_ERR.INVENTORY_INVALID), `expected ${code}, got ${String(err)}`);
    return err.message;
  }
  assert.fail('no error');
}

describe('inventory file', () => {
  it('serves Pods by IP and time, Nodes, Services and the cluster UUID from YAML', () => {
    const file = writeInventory(`
clusterUuid: 1E6C0A95-2D3B-4F8C-9A7E-5B4C3D2E1F00
pods:
  - { namespace: shop, name: web-0, node: node-b, ips: [10.244.1.5], created: "2026-11-30T09:00:00Z", deleted: "2026-11-30T10:00:00Z" }
  - namespace: shop
    name: web-1
    uid: ${UID_A}
    node: node-a
    ips: [10.244.1.5, "FD00:0:0::5"]
    labels: { tier: front, app: web }
    created: "2026-11-30T10:00:00Z"
nodes: [{ name: node-a, uid: ${UID_B} }, { name: node-b }]
services: [{ namespace: shop, name: web }]
`);
    const inv = InventoryMetadataSource.load(file, { clockSkewToleranceMs: 0 });
    const at = (iso: string) => Date.parse(iso);
    assert.equal(inv.podByIp('10.244.1.5', at('2026-11-30T09:30:00Z'))?.name, 'web-0');
    assert.equal(inv.podByIp('10.244.1.5', at('2026-11-30T09:59:59.999Z'))?.name, 'web-0');
    const web1 = inv.podByIp('10.244.1.5', at('2026-11-30T10:00:00Z'));
    assert.deepEqual(web1, { namespace: 'shop', name: 'web-1', uid: UID_A, nodeName: 'node-a', labels: { tier: 'front', app: 'web' }, labelsJson: '{"app":"web","tier":"front"}' });
    assert.equal(inv.podByIp('fd00::5', at('2027-01-01T00:00:00Z'))?.name, 'web-1', 'IPv6 matched in canonical form');
    assert.equal(inv.podByIp('10.244.1.5', at('2026-11-30T08:00:00Z')), undefined, 'before web-0 existed');
    assert.equal(inv.podByIp('10.244.1.5', at('2026-11-30T09:30:00Z') + 3 * 86_400_000)?.name, 'web-1', 'history is never expired');
    assert.equal(inv.nodeByName('node-a')?.uid, UID_B);
    assert.equal(inv.nodeByName('node-b')?.uid, '');
    assert.deepEqual(inv.serviceByName('shop', 'web'), { namespace: 'shop', name: 'web', uid: '' });
    assert.equal(inv.clusterUuid(), '1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00');
    assert.deepEqual(inv.readiness(), { ready: true, detail: `inventory file ${file}: 2 Pods, 2 Nodes, 1 Services` });
  });

  it('reads JSON, and Pods without times exist always', () => {
    const inv = InventoryMetadataSource.load(writeInventory(JSON.stringify({ pods: [{ namespace: 'a', name: 'p', ips: ['10.0.0.1'] }] }), 'json'));
    assert.equal(inv.podByIp('10.0.0.1', 0)?.name, 'p');
    assert.equal(inv.podByIp('10.0.0.1', Date.now())?.labelsJson, '{}');
    assert.equal(inv.clusterUuid(), undefined);
  });

  it('names the entry and key of every problem', () => {
    const message = problems(() =>
      InventoryMetadataSource.fromDocument({
        pods: [
          { namespace: 'shop', name: 'web-1', ips: ['10.0.0.300'], uid: 'abc' },
          { namespace: 'shop', name: 'web-2', ips: [], labels: { app: 7 } },
          { namespace: 'shop', name: 'web-3', ips: ['10.0.0.1'], created: 'yesterday', color: 'blue' },
          { name: 'web-4', ips: ['10.0.0.2'], created: '2026-11-30T10:00:00Z', deleted: '2026-11-30T09:00:00Z' },
        ],
        nodes: [{ uid: UID_A }],
        clusterUuid: 'nope',
        extra: true,
      }),
    );
    for (const expected of [
      'pods[0] (shop/web-1) ips[0]: "10.0.0.300" is not an IPv4 or IPv6 address',
      'pods[0] (shop/web-1) uid: "abc" is not a UID',
      'pods[1] (shop/web-2) ips: a Pod needs at least one IP',
      'pods[1] (shop/web-2) labels.app:',
      'pods[2] (shop/web-3) created: "yesterday" is not a time',
      'pods[2] (shop/web-3): Unrecognized key: "color"',
      'pods[3] (web-4) namespace: is required',
      'nodes[0] name: is required',
      'clusterUuid: "nope" is not a UUID',
      '(top level): Unrecognized key: "extra"',
    ]) {
      assert.ok(message.includes(expected), `missing "${expected}" in:\n${message}`);
    }
  });

  it('refuses what would make lookups ambiguous', () => {
    const message = problems(() =>
      InventoryMetadataSource.fromDocument({
        pods: [
          { namespace: 'a', name: 'p1', uid: UID_A, ips: ['10.0.0.1'] },
          { namespace: 'a', name: 'p2', ips: ['10.0.0.1'], created: '2026-01-01T00:00:00Z' },
          { namespace: 'a', name: 'p1', ips: ['10.0.0.9'] },
          { namespace: 'a', name: 'p4', ips: ['10.0.0.4'], created: '2026-01-01T00:00:00Z', deleted: '2026-01-02T00:00:00Z' },
          { namespace: 'a', name: 'p5', ips: ['10.0.0.4'], created: '2026-01-02T00:00:00Z' },
        ],
        nodes: [{ name: 'n', uid: UID_A }, { name: 'n' }],
        services: [{ namespace: 'a', name: 's' }, { namespace: 'a', name: 's' }],
      }),
    );
    assert.match(message, /pods\[1\] \(a\/p2\) ips: 10\.0\.0\.1 also belongs to pods\[0\] \(a\/p1\) at the same time/);
    assert.match(message, /pods\[2\] \(a\/p1\) name: pods\[0\] has the same namespace and name at the same time/);
    assert.match(message, /nodes\[0\] \(n\) uid: UID 8d0f4a1e-7c1b-4b5e-9a51-0c2e3f4a5b6c is already pods\[0\]'s/);
    assert.match(message, /nodes\[1\] \(n\) name: Node n is listed twice \(also nodes\[0\]\)/);
    assert.match(message, /services\[1\] \(a\/s\) name: Service a\/s is listed twice/);
    assert.doesNotMatch(message, /pods\[4\]/, 'one IP after another, at different times, is fine');
  });

  it('says when the file cannot be read or parsed', () => {
    assert.match(problems(() => InventoryMetadataSource.load('/nonexistent/inventory.yaml'), K8S_ERR.INVENTORY_UNREADABLE), /cannot read inventory file \/nonexistent\/inventory\.yaml/);
    assert.match(problems(() => InventoryMetadataSource.load(writeInventory('pods: [unclosed')), K8S_ERR.INVENTORY_UNREADABLE), /is not YAML or JSON/);
  });
});
