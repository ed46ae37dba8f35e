import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCollectorAddress } from './address.js';
import { flowCollectorSection } from './config.js';

test("flowCollector.address takes Antrea's <host>:<port>[:<proto>] forms", () => {
  assert.deepEqual(parseCollectorAddress('collector.example:4739:udp'), { host: 'collector.example', port: 4739, transport: 'udp', tls: false });
  assert.deepEqual(parseCollectorAddress('10.0.0.5'), { host: '10.0.0.5', port: 4739, transport: 'tcp', tls: false });
  assert.deepEqual(parseCollectorAddress('[fd00::5]:2055:TCP'), { host: 'fd00::5', port: 2055, transport: 'tcp', tls: false });
  assert.deepEqual(parseCollectorAddress('[fd00::5]'), { host: 'fd00::5', port: 4739, transport: 'tcp', tls: false });
  assert.deepEqual(parseCollectorAddress('c:4739:tls'), { host: 'c', port: 4739, transport: 'tcp', tls: true });
  assert.deepEqual(parseCollectorAddress('collector.example::udp'), { host: 'collector.example', port: 4739, transport: 'udp', tls: false }, 'an empty port is the default one');
  assert.deepEqual(parseCollectorAddress('[fd00::5]::udp'), { host: 'fd00::5', port: 4739, transport: 'udp', tls: false });
});

test('a bad flowCollector section fails with the key and what is allowed', () => {
  const issues = (input: unknown) => {
    const r = flowCollectorSection.safeParse(input);
    assert.equal(r.success, false);
    return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  assert.deepEqual(issues({ enable: true }), ['address: is required when flowCollector.enable is true']);
  assert.match(issues({ enable: true, address: 'ipfix://c:4739' })[0]!, /^address: "ipfix:\/\/c:4739" is a URL/);
  assert.match(issues({ enable: true, address: 'c:4739:sctp' })[0]!, /^address: .*protocol "sctp" is not supported \(tcp, udp or tls\)/);
  assert.match(issues({ enable: true, address: 'c:99999' })[0]!, /^address: .*port "99999"/);
  assert.match(issues({ enable: true, address: 'c:' })[0]!, /^address: .*port "" is not a number/, 'an empty port with no protocol after it');
  assert.match(issues({ enable: true, address: 'fd00::1:4739' })[0]!, /^address: .*must be in brackets/);
  assert.match(issues({ enable: true, address: 'c:4739:udp', tls: { enable: true } })[0]!, /^tls.enable: TLS over UDP \(DTLS\) is not supported/);
  assert.match(issues({ enable: true, address: 'c', maxIPFIXMsgSize: 100 })[0]!, /^maxIPFIXMsgSize: must be 0 \(automatic\) or between 512 and 65535/);
  assert.match(issues({ enable: true, address: 'c', tls: { enable: true, certFile: '/x.crt' } })[0]!, /^tls.keyFile: certFile and keyFile go together/);
  assert.match(issues({ enable: true, address: 'c', recordFormat: 'XML' })[0]!, /^recordFormat: /);
});

test('defaults are Antrea\'s, also for its empty values', () => {
  const c = flowCollectorSection.parse({});
  assert.deepEqual([c.enable, c.recordFormat, c.templateRefreshTimeout, c.maxIPFIXMsgSize, c.includeK8sNames, c.includeK8sUIDs, c.observationDomainID], [false, 'IPFIX', 600_000, 0, true, false, undefined]);
  const empty = flowCollectorSection.parse({ recordFormat: '', templateRefreshTimeout: '' });
  assert.deepEqual([empty.recordFormat, empty.templateRefreshTimeout], ['IPFIX', 600_000]);
  assert.equal(flowCollectorSection.parse({ templateRefreshTimeout: '0s' }).templateRefreshTimeout, 600_000, "go-ipfix's 600 s");
});
