// pcap and pcapng reading and the link/IP/UDP layers, on captures the test builds itself.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CAPTURE_ERR } from './errors.js';
import { capturedMessages } from './messages.js';
import { udpOf } from './packet.js';
import { type Datagram, LINKTYPE, ethernetFrame, pcapFile, pcapngFile, sll2Frame, sllFrame, ipPacket } from './testing/pcap-files.js';

const dir = mkdtempSync(join(tmpdir(), 'flowagg-capture-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const v4: Datagram = { src: '192.0.2.10', srcPort: 40000, dst: '192.0.2.1', dstPort: 4739, payload: Buffer.from('000a0010', 'hex') };
const v6: Datagram = { src: '2001:db8::10', srcPort: 40001, dst: '2001:db8::1', dstPort: 4739, payload: Buffer.from('000a0010abcd', 'hex') };

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('udpOf', () => {
  const cases: [string, number, Buffer, Datagram][] = [
    ['Ethernet IPv4', LINKTYPE.ETHERNET, ethernetFrame(v4), v4],
    ['Ethernet 802.1Q IPv6', LINKTYPE.ETHERNET, ethernetFrame(v6, 42), v6],
    ['Linux cooked IPv4', LINKTYPE.LINUX_SLL, sllFrame(v4), v4],
    ['Linux cooked v2 IPv6', LINKTYPE.LINUX_SLL2, sll2Frame(v6), v6],
    ['raw IPv6', LINKTYPE.RAW, ipPacket(v6), v6],
  ];
  for (const [name, link, frame, d] of cases) {
    it(name, () => {
      const p = udpOf(link, frame);
      assert.equal(p.kind, 'udp');
      if (p.kind !== 'udp') return;
      assert.deepEqual([p.datagram.sourceAddress, p.datagram.sourcePort, p.datagram.destinationPort], [d.src, d.srcPort, d.dstPort]);
      assert.deepEqual(Buffer.from(p.datagram.payload), Buffer.from(d.payload));
    });
  }
  it('skips what is not UDP, fragments and unknown link types, saying why', () => {
    const tcp = ethernetFrame(v4);
    tcp[14 + 9] = 6;
    assert.deepEqual(udpOf(LINKTYPE.ETHERNET, tcp), { kind: 'skipped', reason: 'IP protocol 6 is not UDP' });
    const frag = ethernetFrame(v4);
    frag[14 + 6] = 0x20; // more fragments
    assert.equal(udpOf(LINKTYPE.ETHERNET, frag).kind, 'skipped');
    assert.match((udpOf(147, tcp) as { reason: string }).reason, /link type 147/);
    assert.equal(udpOf(LINKTYPE.ETHERNET, Buffer.alloc(10)).kind, 'skipped');
  });
});

describe('capturedMessages', () => {
  it('reads pcap and pcapng, one message per UDP payload, with the exporter address and time', () => {
    for (const [name, bytes] of [['a.pcap', pcapFile(LINKTYPE.ETHERNET, [ethernetFrame(v4), ethernetFrame(v6)])], ['a.pcapng', pcapngFile(LINKTYPE.ETHERNET, [ethernetFrame(v4), ethernetFrame(v6)])]] as const) {
      const got = [...capturedMessages(file(name, bytes))].map((m) => (m.kind === 'message' ? [m.exporter, m.timestampMs, Buffer.from(m.bytes).toString('hex')] : m));
      assert.deepEqual(got, [['192.0.2.10:40000', 1_700_000_000_000, '000a0010'], ['[2001:db8::10]:40001', 1_700_000_001_000, '000a0010abcd']], name);
    }
  });

  it('stops an IPFIX file at a garbage message length, with the offset', () => {
    const path = file('bad.ipfix', Buffer.from('000a0014000000000000000000000000000000000009000400000000', 'hex'));
    const messages = capturedMessages(path);
    const first = messages.next();
    assert.ok(!first.done && first.value.kind === 'message');
    assert.throws(() => messages.next(), { code: CAPTURE_ERR.MALFORMED, context: { offset: 20 } });
  });

  it('rejects a file of unknown kind and a truncated pcap record', () => {
    assert.throws(() => [...capturedMessages(file('x.bin', Buffer.from('hello world')))], { code: CAPTURE_ERR.UNKNOWN_FORMAT });
    const pcap = pcapFile(LINKTYPE.ETHERNET, [ethernetFrame(v4)]);
    assert.throws(() => [...capturedMessages(file('t.pcap', pcap.subarray(0, pcap.length - 3)))], { code: CAPTURE_ERR.TRUNCATED, context: { offset: 24 } });
  });
});

describe('corrupted captures', () => {
  it('2,000 mutated pcap and pcapng files: only CaptureErrors, every frame either decoded or skipped', async () => {
    const { rng } = await import('../ipfix/testing/fuzz.js');
    const { CaptureError } = await import('./errors.js');
    const rand = rng(7);
    const frames = [ethernetFrame(v4), ethernetFrame(v6, 3), ethernetFrame(v4)];
    const originals = [pcapFile(LINKTYPE.ETHERNET, frames), pcapngFile(LINKTYPE.ETHERNET, frames), pcapngFile(LINKTYPE.LINUX_SLL, [sllFrame(v6)])];
    let messages = 0;
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.from(originals[i % originals.length] as Buffer);
      for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) b[Math.floor(rand() * b.length)] ^= 1 << Math.floor(rand() * 8);
      const path = file(`m${i % 8}.cap`, rand() < 0.2 ? b.subarray(0, Math.floor(rand() * b.length)) : b);
      try {
        for (const m of capturedMessages(path)) if (m.kind === 'message') messages++;
      } catch (err) {
        assert.ok(err instanceof CaptureError, `iteration ${i}: ${String(err)}`);
      }
    }
    assert.ok(messages > 1000);
  });
});
