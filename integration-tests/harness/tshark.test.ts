import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { readPcapBuffer } from '../../lib/capture/testing/pcap-files.js';
import { collectorPcap, parseCflowJson, tsharkDecodeIpfix } from './tshark.js';
import { cflowField, parseTsharkRelativeMs, parseTsharkTime } from './tshark-fields.js';
import { HARNESS_TOOL_OUTPUT, requireTools, TSHARK } from './tools.js';

test('tshark time texts become nanoseconds and milliseconds', () => {
  assert.equal(parseTsharkTime('Jan 15, 2024 10:00:45.402000999 UTC'), 1_705_312_845_402_000_999n);
  assert.equal(parseTsharkTime('Jan  1, 1970 00:00:00.000000000 UTC'), 0n);
  assert.equal(parseTsharkTime('Dec 31, 2023 23:59:59 UTC'), 1_704_067_199_000_000_000n);
  assert.throws(() => parseTsharkTime('Jan 15, 2024 10:00:45.402 CET'), (e) => isFlowaggError(e, HARNESS_TOOL_OUTPUT));
  assert.equal(parseTsharkRelativeMs('44.775000000'), 44_775n);
  assert.equal(parseTsharkRelativeMs('3'), 3000n);
  assert.throws(() => parseTsharkRelativeMs('-1.5'), /seconds.fraction/);
});

test('every element maps to its cflow fields; an unknown one names itself', () => {
  assert.deepEqual(cflowField(0, 1).names, [['cflow.octets']]);
  assert.deepEqual(cflowField(29305, 1).names, [['cflow.octets']]);
  assert.deepEqual(cflowField(0, 139).parse(['129', '3']), 129n * 256n + 3n);
  assert.throws(() => cflowField(0, 999), /information element 0\/999/);
  // Antrea's elements come as tshark prints an enterprise it has no dictionary for: raw hex bytes.
  assert.deepEqual(cflowField(56506, 101).names, [['cflow.enterprise_private_entry']]);
  assert.equal(cflowField(56506, 101).parse(['70:6f:64']), '70:6f:64');
  assert.throws(() => cflowField(9, 101), /information element 9\/101/);
});

test('parseCflowJson reads templates, merged duplicate keys and data records in order', () => {
  const field = (type: number, length: number, pen?: number) => ({
    'cflow.template_ipfix_pen_provided': pen === undefined ? '0' : '1',
    'cflow.template_ipfix_field_type': String(type),
    'cflow.template_field_length': String(length),
    ...(pen === undefined ? {} : { 'cflow.template_ipfix_field_pen': String(pen) }),
  });
  const json = [
    {
      _source: {
        layers: {
          cflow: {
            'cflow.exporttime': '100',
            'cflow.sequence': '5',
            'cflow.od_id': '0',
            'Set 1 [id=2] (Data Template): 300': {
              'Template (Id = 300, Count = 3)': {
                'cflow.template_id': '300',
                'Field (1/3): IP_SRC_ADDR': field(8, 4),
                'Field (2/3): BYTES': field(1, 4),
                'Field (3/3): BYTES [Reverse]': field(1, 4, 29305),
              },
            },
            'Set 2 [id=300] (2 flows)': {
              'cflow.flowset_id': '300',
              'Flow 1': { 'cflow.srcaddr': '10.0.0.1', 'cflow.octets': ['10', '20'] },
              'Flow 2': { 'cflow.srcaddr': '10.0.0.2', 'cflow.octets': ['30', '40'] },
            },
          },
        },
      },
    },
  ];
  const decoded = parseCflowJson(json);
  assert.deepEqual(decoded.headers, [{ exportTime: 100, sequenceNumber: 5, observationDomainId: 0 }]);
  assert.deepEqual(
    decoded.records.map((r) => [r.frame, r.templateId, r.fields.map((f) => `${f.pen}/${f.id}=${f.value}`)]),
    [
      [1, 300, ['0/8=10.0.0.1', '0/1=10', '29305/1=20']],
      [1, 300, ['0/8=10.0.0.2', '0/1=30', '29305/1=40']],
    ],
  );
  const missing = structuredClone(json);
  delete (missing[0]?._source.layers.cflow['Set 2 [id=300] (2 flows)']['Flow 2'] as { 'cflow.octets'?: string[] })['cflow.octets'];
  assert.throws(() => parseCflowJson(missing), /no value left for cflow.octets/);
  const noTemplate = structuredClone(json);
  delete (noTemplate[0]?._source.layers.cflow as Record<string, unknown>)['Set 1 [id=2] (Data Template): 300'];
  assert.throws(() => parseCflowJson(noTemplate), /data set 300 before its template/);
  assert.throws(() => parseCflowJson({}), /expected an array/);
});

test('collectorPcap wraps each message in its own UDP datagram to the collector port', () => {
  const messages = [Uint8Array.from([1, 2, 3]), Uint8Array.from([4])];
  const packets = readPcapBuffer(collectorPcap(messages, { address: '10.0.0.1', port: 1234 }, { address: '10.0.0.2', port: 2055 }));
  assert.equal(packets.length, 2);
  const udp = Buffer.from(packets[0]?.data.subarray(14 + 20) ?? []);
  assert.deepEqual([udp.readUInt16BE(0), udp.readUInt16BE(2), ...udp.subarray(8)], [1234, 2055, 1, 2, 3]);
});

/** An IPFIX message with one template and its data, built by hand (RFC 7011 §3). */
function handBuiltMessage(): Buffer {
  const u16 = (v: number) => [v >> 8, v & 0xff];
  const u32 = (v: number) => [...u16(Math.floor(v / 65536)), ...u16(v % 65536)];
  const u64 = (v: bigint) => [...u32(Number(v >> 32n)), ...u32(Number(v & 0xffffffffn))];
  const fields = [
    [...u16(8), ...u16(4)], // sourceIPv4Address
    [...u16(27), ...u16(16)], // sourceIPv6Address
    [...u16(152), ...u16(8)], // flowStartMilliseconds
    [...u16(1), ...u16(8)], // octetDeltaCount
    [...u16(0x8001), ...u16(4), ...u32(29305)], // reverseOctetDeltaCount
    [...u16(139), ...u16(2)], // icmpTypeCodeIPv6
  ].flat();
  const templateSet = [...u16(2), ...u16(4 + 4 + fields.length), ...u16(300), ...u16(6), ...fields];
  const record = (i: number) => [
    ...[10, 0, 0, i],
    ...[0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), i],
    ...u64(1_705_312_800_123n + BigInt(i)),
    ...u64(2n ** 40n + BigInt(i)),
    ...u32(500 + i),
    ...u16(0x8100 + i),
  ];
  const data = [...record(1), ...record(2)];
  const dataSet = [...u16(300), ...u16(4 + data.length), ...data];
  const body = [...templateSet, ...dataSet];
  return Buffer.from([...u16(10), ...u16(16 + body.length), ...u32(1_705_312_900), ...u32(42), ...u32(7), ...body]);
}

test('tshark decodes a hand-built message to the values put into it', async (t) => {
  if (!requireTools(t, TSHARK)) return;
  const decoded = await tsharkDecodeIpfix([handBuiltMessage()], { signal: t.signal });
  assert.deepEqual(decoded.warnings, []);
  assert.deepEqual(decoded.headers, [{ exportTime: 1_705_312_900, sequenceNumber: 42, observationDomainId: 7 }]);
  assert.deepEqual(
    decoded.records.map((r) => [r.templateId, ...r.fields.map((f) => f.value)]),
    [1, 2].map((i) => [300, `10.0.0.${i}`, `2001:db8::${i}`, (1_705_312_800_123n + BigInt(i)) * 1_000_000n, 2n ** 40n + BigInt(i), 500n + BigInt(i), 0x8100n + BigInt(i)]),
  );
  assert.deepEqual(decoded.records[0]?.fields.map((f) => `${f.pen}/${f.id}/${f.length}`), ['0/8/4', '0/27/16', '0/152/8', '0/1/8', '29305/1/4', '0/139/2']);
});
