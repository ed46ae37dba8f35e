import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { formatIpv4, formatIpv6 } from '../../lib/ipfix/text.js';
import { FLOW_RECORD_TYPE, type FlowRecord, flowRecordReader, flowRecordWriter } from '../../schemas/flow-record.js';
import { FIELD, FlowRecordScanner, ScannedRecord } from '../../schemas/flow-record-scanner.js';
import type { MetadataOptions } from '../metadata-fill.js';
import { decodeOutput, flowRecord, flowRecordValue, type RecordSpec, staticMetadata } from '../testing/fakes.js';
import { DIRECTION_EGRESS, DIRECTION_INGRESS, DIRECTION_UNKNOWN, flowDirection } from './direction.js';
import { ProxyChanges, proxyChanges, proxyHeader, referenceProxy, spliceRecord } from './transform.js';

const scanner = new FlowRecordScanner();
const header = proxyHeader();
const OFF: MetadataOptions = { metadata: undefined, podLabels: false, includeK8sUIDs: false };

function proxied(value: Buffer, options: MetadataOptions = OFF): { out: Buffer; record: FlowRecord; reference: Buffer } {
  const r = new ScannedRecord(true);
  scanner.scan(value, r);
  const c = new ProxyChanges();
  proxyChanges(r, options, c);
  const out = Buffer.from(spliceRecord(r, c, header, new RecordBuffer()));
  return { out, record: decodeOutput(out), reference: referenceProxy(value, c, flowRecordReader(), flowRecordWriter()) };
}

const ip = (b: unknown) => ((b as Buffer).length === 4 ? formatIpv4(b as Buffer, 0) : formatIpv6(b as Buffer, 0));
const agent = (extra: Partial<RecordSpec>): RecordSpec => ({ src: '10.10.1.5', dst: '10.10.2.7', sport: 40000, dport: 80, start: 1000, end: 1010, ...extra });

describe('proxy mode', () => {
  test('adds the original exporter\'s address and observation domain, both address families as Antrea does', () => {
    const v4 = proxied(flowRecordValue(agent({ exporter: '192.0.2.44', observationDomainId: 0x5eed, flowType: 1 }))).record;
    assert.equal(v4.originalObservationDomainId, 0x5eed);
    assert.deepEqual([ip(v4.originalExporterIPv4Address), ip(v4.originalExporterIPv6Address)], ['192.0.2.44', '::']);
    const v6 = proxied(flowRecordValue(agent({ exporter: 'fd00::44', flowType: 1 }))).record;
    assert.deepEqual([ip(v6.originalExporterIPv4Address), ip(v6.originalExporterIPv6Address)], ['0.0.0.0', 'fd00::44']);
  });

  test('flowDirection by every rule of reference §2.2', () => {
    const cases: [string, Partial<RecordSpec>, number][] = [
      ['inter-Node, source Pod only: egress', { flowType: 2, sourcePodName: 'a', destinationPodName: '' }, DIRECTION_EGRESS],
      ['inter-Node, destination Pod only: ingress', { flowType: 2, sourcePodName: '', destinationPodName: 'b' }, DIRECTION_INGRESS],
      ['inter-Node, both Pods: unknown', { flowType: 2, sourcePodName: 'a', destinationPodName: 'b' }, DIRECTION_UNKNOWN],
      ['to external with a source Pod: egress', { flowType: 3, sourcePodName: 'a' }, DIRECTION_EGRESS],
      ['to external without a source Pod: unknown', { flowType: 3, sourcePodName: '' }, DIRECTION_UNKNOWN],
      ['from external with a destination Pod: ingress', { flowType: 4, destinationPodName: 'b' }, DIRECTION_INGRESS],
      ['from external without one: unknown', { flowType: 4, destinationPodName: '' }, DIRECTION_UNKNOWN],
      ['intra-Node: unknown', { flowType: 1, sourcePodName: 'a', destinationPodName: 'b' }, DIRECTION_UNKNOWN],
      ['no flowType, no flowDirection (not Antrea): unknown', {}, DIRECTION_UNKNOWN],
      ['no flowType, the exporter\'s own flowDirection: kept', { flowDirection: 1 }, 1],
      ['an Antrea record\'s received flowDirection is recomputed', { flowType: 1, flowDirection: 0 }, DIRECTION_UNKNOWN],
    ];
    for (const [what, extra, expected] of cases) assert.equal(proxied(flowRecordValue(agent(extra))).record.flowDirection, expected, what);
    assert.equal(flowDirection(Number.NaN, true, false, Number.NaN), DIRECTION_UNKNOWN);
  });

  test('the missing side of an inter-Node record from Kubernetes, with labels and UIDs; other records untouched', () => {
    const metadata = staticMetadata(
      [{ ip: '10.10.2.7', namespace: 'shop', name: 'db-0', uid: '11111111-2222-4333-8444-555555555555', nodeName: 'node-b', labels: { tier: 'db', app: 'shop' } },
        { ip: '10.10.1.5', namespace: 'shop', name: 'web-0', uid: '66666666-2222-4333-8444-555555555555', nodeName: 'node-a', labels: {} }],
      [{ name: 'node-b', uid: '77777777-2222-4333-8444-555555555555' }],
      [{ namespace: 'shop', name: 'db', uid: '88888888-2222-4333-8444-555555555555' }],
    );
    const options = { metadata, podLabels: true, includeK8sUIDs: true };
    const { record } = proxied(flowRecordValue(agent({ flowType: 2, sourcePodName: 'web-0', sourcePodNamespace: 'shop', destinationPodName: '', destinationServicePortName: 'shop/db:sql' })), options);
    assert.deepEqual([record.destinationPodName, record.destinationPodNamespace, record.destinationNodeName], ['db-0', 'shop', 'node-b']);
    assert.deepEqual([record.sourcePodLabels, record.destinationPodLabels], ['{}', '{"app":"shop","tier":"db"}']);
    assert.equal((record.destinationPodUUID as Buffer).toString('hex'), '11111111222243338444555555555555');
    assert.equal((record.destinationNodeUUID as Buffer).toString('hex'), '77777777222243338444555555555555');
    assert.equal((record.destinationServiceUUID as Buffer).toString('hex'), '88888888222243338444555555555555');
    const intra = proxied(flowRecordValue(agent({ flowType: 1, sourcePodName: 'web-0', sourcePodNamespace: 'shop', destinationPodName: '' })), options).record;
    assert.equal(intra.destinationPodName, '', 'only inter-Node records are filled');
    const off = proxied(flowRecordValue(agent({ flowType: 2, sourcePodName: 'web-0', sourcePodNamespace: 'shop' })), { ...options, podLabels: false }).record;
    assert.deepEqual([off.sourcePodLabels, off.destinationPodLabels], ['', ''], 'labels off: ""');
  });

  test('unknown elements and every other field are forwarded byte for byte', () => {
    const extras = [{ pen: 9999, id: 7, value: Buffer.from([1, 2, 3]) }, { pen: 0, id: 8, value: Buffer.from([10, 0, 0, 9]) }, { pen: 29305, id: 300, value: Buffer.alloc(300, 0xab) }];
    const input = flowRecordWriter().encode({ ...flowRecord(agent({ flowType: 1, tcpControlBits: 0x1b, vlanId: 42 })), extras });
    const { out, record } = proxied(input);
    assert.deepEqual(record.extras.map((x) => ({ pen: x.pen, id: x.id, value: x.value })), extras);
    const r = new ScannedRecord(true);
    scanner.scan(input, r);
    const o = new ScannedRecord(true);
    scanner.scan(out, o);
    const range = (s: ScannedRecord, name: string) => s.buf.subarray(s.at[FIELD[name]!], s.at[FIELD[name]! + 1]);
    for (const name of ['extras', 'tcpControlBits', 'vlanId', 'sourceIPv4Address', 'flowStartMilliseconds', 'exportTime', 'sequenceNumber', 'receiveTime']) {
      assert.deepEqual(range(o, name), range(r, name), name);
    }
  });

  test('the splice gives the reference writer\'s bytes, on random records', () => {
    const metadata = staticMetadata([{ ip: '10.0.0.2', namespace: 'ns', name: 'b', uid: '0b0c0d0e-0000-4000-8000-000000000001', nodeName: 'n', labels: { x: 'y' } }]);
    for (let n = 0; n < 400; n++) {
      const random = FLOW_RECORD_TYPE.random() as unknown as Record<string, unknown>;
      if (n % 3 === 0) Object.assign(random, { flowType: 2, destinationPodName: '', destinationIPv4Address: Buffer.from([10, 0, 0, 2]), exporterAddress: n % 2 ? '10.1.1.1' : 'fd00::1' });
      const value = flowRecordWriter().encode(random as FlowRecord);
      const { out, reference } = proxied(value, { metadata, podLabels: n % 2 === 0, includeK8sUIDs: n % 4 === 0 });
      assert.deepEqual(out, reference);
    }
  });
});
