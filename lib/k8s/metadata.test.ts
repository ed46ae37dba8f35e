import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalIp, ipKey, ipv4Number } from './ip.js';
import { serviceOfPortName } from './metadata.js';

describe('serviceOfPortName', () => {
  it('cuts Antrea\'s destinationServicePortName "ns/name:port" at the colon', () => {
    assert.deepEqual(serviceOfPortName('shop/web:http'), { namespace: 'shop', name: 'web' });
    assert.deepEqual(serviceOfPortName('shop/web:'), { namespace: 'shop', name: 'web' });
    assert.deepEqual(serviceOfPortName('shop/web'), { namespace: 'shop', name: 'web' });
    for (const bad of ['', ':http', 'web:http', '/web:http', 'shop/:http']) assert.equal(serviceOfPortName(bad), undefined, bad);
  });
});

describe('canonicalIp', () => {
  it('writes addresses as flow records carry them', () => {
    assert.equal(canonicalIp('10.244.1.5'), '10.244.1.5');
    assert.equal(canonicalIp(' 2001:DB8:0:0:0:0:0:0001 '), '2001:db8::1');
    assert.equal(canonicalIp('fd00:0:0::5'), 'fd00::5');
    for (const bad of ['', '10.0.0.256', '10.0.0', 'fd00:::1', 'node-a']) assert.equal(canonicalIp(bad), undefined, bad);
  });
});

describe('ipv4Number', () => {
  it('reads dotted IPv4 as the unsigned number of its 4 bytes', () => {
    assert.equal(ipv4Number('10.244.1.5'), 0x0af40105);
    assert.equal(ipv4Number('255.255.255.255'), 0xffffffff);
    assert.equal(ipv4Number('fd00::1'), undefined);
    assert.equal(ipKey('192.0.2.1'), 0xc0000201);
    assert.equal(ipKey('fd00::1'), 'fd00::1');
  });
});
