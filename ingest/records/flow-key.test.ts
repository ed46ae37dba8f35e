import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionForKey } from '../../lib/log/partitioner.js';
import type { FlowRecord } from '../../schemas/flow-record.js';
import { flowKeyOfRecord, parseFlowKey } from '../../schemas/flow-key.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { antreaAgentTemplate } from '../../lib/ipfix/testing/templates.js';
import { contextFor, encodeRecord } from './testing/records.js';
import { compileTranscoder } from './transcode.js';

const ip4 = (s: string) => Buffer.from(s.split('.').map(Number));
const ip6 = (s: string) => {
  const out = Buffer.alloc(16);
  out.writeUInt16BE(parseInt(s, 16), 0);
  return out;
};

/** A FlowRecord with only the fields the key reads. */
function rec(fields: Partial<Record<string, unknown>>): FlowRecord {
  const none = {
    sourceIPv4Address: null, destinationIPv4Address: null, sourceIPv6Address: null, destinationIPv6Address: null, protocolIdentifier: null,
    sourceTransportPort: null, destinationTransportPort: null, flowType: null, destinationPodName: null, proxySnatIPv4: null, proxySnatIPv6: null, proxySnatPort: null,
  };
  return { ...none, ...fields } as unknown as FlowRecord;
}

const tcp = (src: string, sport: number, dst: string, dport: number, more: Partial<Record<string, unknown>> = {}) =>
  rec({ sourceIPv4Address: ip4(src), destinationIPv4Address: ip4(dst), protocolIdentifier: 6, sourceTransportPort: sport, destinationTransportPort: dport, ...more });

test('IPv4 key layout: family, addresses, protocol, ports big-endian', () => {
  const key = flowKeyOfRecord(tcp('10.0.0.1', 40000, '10.0.1.2', 443));
  assert.deepEqual([...key], [4, 10, 0, 0, 1, 10, 0, 1, 2, 6, 0x9c, 0x40, 0x01, 0xbb]);
  assert.deepEqual(parseFlowKey(key), { family: 4, source: Uint8Array.of(10, 0, 0, 1), destination: Uint8Array.of(10, 0, 1, 2), protocol: 6, sourcePort: 40000, destinationPort: 443 });
});

test('the key is directional: the reply direction is another flow', () => {
  assert.notDeepEqual(flowKeyOfRecord(tcp('10.0.0.1', 40000, '10.0.1.2', 443)), flowKeyOfRecord(tcp('10.0.1.2', 443, '10.0.0.1', 40000)));
});

test('IPv6 keys, keys without addresses, and missing values as zeros', () => {
  const v6 = flowKeyOfRecord(rec({ sourceIPv6Address: ip6('fd00'), destinationIPv6Address: ip6('fd01'), protocolIdentifier: 17, sourceTransportPort: 53, destinationTransportPort: 5353 }));
  assert.equal(v6.length, 38);
  assert.equal(parseFlowKey(v6)?.family, 6);
  assert.equal(parseFlowKey(v6)?.destinationPort, 5353);
  assert.deepEqual([...flowKeyOfRecord(rec({ protocolIdentifier: 1 }))], [0, 1, 0, 0, 0, 0]);
  // Only a destination IPv4: still an IPv4 key, with a zero source.
  assert.deepEqual(parseFlowKey(flowKeyOfRecord(rec({ destinationIPv4Address: ip4('1.2.3.4') })))?.source, Uint8Array.of(0, 0, 0, 0));
  assert.equal(parseFlowKey(Uint8Array.of(5, 1, 2)), undefined);
});

test('FROM_EXTERNAL: the ingress-Node half is keyed by the SNAT address and port, like the destination-Node half', () => {
  // Client 203.0.113.9:51000 → NodePort 192.168.0.10:30080; the ingress Node SNATs it to its gateway 10.10.0.1:61000
  // and forwards to the Pod 10.10.1.5:80 on another Node, which sees 10.10.0.1:61000 → 10.10.1.5:80.
  const ingressHalf = tcp('203.0.113.9', 51000, '10.10.1.5', 80, { flowType: 4, destinationPodName: '', proxySnatIPv4: ip4('10.10.0.1'), proxySnatPort: 61000 });
  const destinationHalf = tcp('10.10.0.1', 61000, '10.10.1.5', 80, { flowType: 4, destinationPodName: 'web-0', proxySnatIPv4: ip4('0.0.0.0') });
  const key = flowKeyOfRecord(ingressHalf);
  assert.deepEqual(key, flowKeyOfRecord(destinationHalf));
  assert.equal(partitionForKey(key, 12), partitionForKey(flowKeyOfRecord(destinationHalf), 12));
  // Any of the three conditions missing: no rewrite.
  const original = flowKeyOfRecord(tcp('203.0.113.9', 51000, '10.10.1.5', 80));
  for (const change of [{ flowType: 3 }, { destinationPodName: 'web-0' }, { proxySnatIPv4: ip4('0.0.0.0') }, { proxySnatIPv4: null }]) {
    assert.deepEqual(flowKeyOfRecord({ ...ingressHalf, ...change } as FlowRecord), original, JSON.stringify(change));
  }
});

test('the transcoder writes the same FROM_EXTERNAL key from IPFIX bytes', () => {
  const template = antreaAgentTemplate();
  const byName: Record<string, unknown> = {
    sourceIPv4Address: '203.0.113.9', destinationIPv4Address: '10.10.1.5', sourceTransportPort: 51000, destinationTransportPort: 80, protocolIdentifier: 6,
    flowType: 4, proxySnatIPv4: '10.10.0.1', proxySnatPort: 61000, destinationPodName: '\0\0',
  };
  const values = template.fields.map((f) => byName[f.ie.name] ?? (f.ie.type === 'string' ? '' : f.ie.type === 'ipv4Address' ? '0.0.0.0' : 0));
  const bytes = encodeRecord(template, values as never);
  const out = new RecordBuffer(4096);
  compileTranscoder(template).transcode(bytes, 0, bytes.length, contextFor({ exporterAddress: '', exporterPort: 0, transport: 'tcp' }, template, { exportTime: 0, sequenceNumber: 0, receiveTime: 0, systemInitTime: undefined }), out);
  assert.deepEqual(out.key(), flowKeyOfRecord(tcp('10.10.0.1', 61000, '10.10.1.5', 80)));
});
