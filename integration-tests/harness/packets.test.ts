import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressBytes, ethernetFrame, internetChecksum, ipLength, TCP_ACK, TCP_SYN } from './packets.js';

test('addresses: dotted quads and every IPv6 text form', () => {
  assert.deepEqual([...addressBytes('10.1.2.255')], [10, 1, 2, 255]);
  const v6 = (s: string) => Buffer.from(addressBytes(s)).toString('hex');
  assert.equal(v6('::1'), '00000000000000000000000000000001');
  assert.equal(v6('2001:db8::'), '20010db8000000000000000000000000');
  assert.equal(v6('2001:db8:1::a'), '20010db800010000000000000000000a');
  assert.equal(v6('fe80:0:0:0:1:2:3:4'), 'fe800000000000000001000200030004');
  assert.throws(() => addressBytes('10.1.2'), /not an IP address/);
  assert.throws(() => addressBytes('::ffff:1.2.3.4'), /not an IP address/);
});

test('the Internet checksum of RFC 1071 §3', () => {
  // RFC 1071's example bytes sum (with end-around carry) to 0xddf2.
  assert.equal(internetChecksum(Uint8Array.from([0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), ~0xddf2 & 0xffff);
  // An odd byte count pads with a zero byte; parts are one stream.
  assert.equal(internetChecksum(Uint8Array.from([0x00, 0x01, 0xf2]), Uint8Array.from([0x03, 0xf4, 0xf5, 0xf6, 0xf7])), ~0xddf2 & 0xffff);
  assert.equal(internetChecksum(Uint8Array.from([0xff])), ~0xff00 & 0xffff);
});

const ETH = 14;

test('IPv4/TCP frame: lengths, header fields and checksums that verify', () => {
  const frame = ethernetFrame({ src: '10.0.0.1', dst: '10.0.0.2', tos: 0xb8, ttl: 9, payload: 5, transport: { kind: 'tcp', srcPort: 1234, dstPort: 80, flags: TCP_SYN | TCP_ACK, seq: 7, ack: 99 } });
  assert.equal(frame.length, ETH + 20 + 20 + 5);
  assert.equal(ipLength(frame), 45);
  assert.equal(frame.readUInt16BE(12), 0x0800);
  const ip = frame.subarray(ETH, ETH + 20);
  assert.deepEqual([ip[0], ip[1], ip.readUInt16BE(2), ip[8], ip[9]], [0x45, 0xb8, 45, 9, 6]);
  assert.equal(internetChecksum(ip), 0, 'IPv4 header checksum');
  const tcp = frame.subarray(ETH + 20);
  assert.deepEqual([tcp.readUInt16BE(0), tcp.readUInt16BE(2), tcp.readUInt32BE(4), tcp.readUInt32BE(8), tcp[13]], [1234, 80, 7, 99, 0x12]);
  const pseudo = Buffer.concat([ip.subarray(12, 20), Buffer.from([0, 6, 0, tcp.length])]);
  assert.equal(internetChecksum(pseudo, tcp), 0, 'TCP checksum over the pseudo-header');
});

test('IPv6/UDP frame carries the given payload, traffic class and a checksum that verifies', () => {
  const payload = Uint8Array.from([9, 8, 7]);
  const frame = ethernetFrame({ src: '2001:db8::1', dst: '2001:db8::2', tos: 0x28, payload, transport: { kind: 'udp', srcPort: 5, dstPort: 4739 } });
  assert.equal(frame.readUInt16BE(12), 0x86dd);
  const ip = frame.subarray(ETH, ETH + 40);
  assert.equal(ip.readUInt32BE(0), ((6 << 28) | (0x28 << 20)) >>> 0);
  assert.deepEqual([ip.readUInt16BE(4), ip[6]], [11, 17]);
  const udp = frame.subarray(ETH + 40);
  assert.deepEqual([...udp.subarray(8)], [9, 8, 7]);
  assert.equal(udp.readUInt16BE(4), 11);
  const pseudo = Buffer.concat([ip.subarray(8, 40), Buffer.from([0, 0, 0, 11, 0, 0, 0, 17])]);
  assert.equal(internetChecksum(pseudo, udp), 0);
});

test('ICMP is ICMPv6 (58, pseudo-header checksum) over IPv6 and ICMP (1, no pseudo-header) over IPv4', () => {
  const v4 = ethernetFrame({ src: '10.0.0.1', dst: '10.0.0.2', payload: 4, transport: { kind: 'icmp', type: 8, code: 0 } });
  assert.equal(v4[ETH + 9], 1);
  assert.equal(internetChecksum(v4.subarray(ETH + 20)), 0);
  const v6 = ethernetFrame({ src: '::1', dst: '::2', payload: 4, transport: { kind: 'icmp', type: 128, code: 0 } });
  assert.equal(v6[ETH + 6], 58);
  const icmp = v6.subarray(ETH + 40);
  const pseudo = Buffer.concat([v6.subarray(ETH + 8, ETH + 40), Buffer.from([0, 0, 0, icmp.length, 0, 0, 0, 58])]);
  assert.equal(internetChecksum(pseudo, icmp), 0);
  assert.throws(() => ethernetFrame({ src: '10.0.0.1', dst: '::2', payload: 0, transport: { kind: 'icmp', type: 8, code: 0 } }), /mixed address families/);
});
