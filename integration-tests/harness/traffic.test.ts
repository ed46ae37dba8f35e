import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writePcap } from '../../lib/capture/testing/pcap-files.js';
import { requireTools, runTool, TSHARK } from './tools.js';
import { conversationMix, type DirectionFlow, renderTraffic } from './traffic.js';

const mix = conversationMix({ count: 45, seed: 11 });
const traffic = renderTraffic(mix);

test('the same options give the same capture; another seed another one', () => {
  assert.deepEqual(writePcap(renderTraffic(conversationMix({ count: 45, seed: 11 })).packets), writePcap(traffic.packets));
  assert.notDeepEqual(writePcap(renderTraffic(conversationMix({ count: 45, seed: 12 })).packets), writePcap(traffic.packets));
});

test('the mix covers every protocol and family, one-way and two-way, with unique flow keys', () => {
  const kinds = new Set(mix.map((c) => `${c.proto}/${c.client.includes(':') ? 6 : 4}`));
  assert.equal(kinds.size, 6);
  assert.ok(traffic.conversations.some((c) => c.reverse === undefined));
  assert.ok(mix.some((c) => c.close === 'rst') && mix.some((c) => c.tos !== 0));
  const keys = traffic.conversations.map((c) => `${c.forward.src}|${c.forward.dst}|${c.forward.srcPort}|${c.forward.dstPort}`);
  assert.equal(new Set(keys).size, keys.length);
});

test('packets are in time order and add up to the per-direction counts', () => {
  for (let i = 1; i < traffic.packets.length; i++) assert.ok((traffic.packets[i - 1]?.timeUs ?? 0) <= (traffic.packets[i]?.timeUs ?? 0));
  const directions = traffic.conversations.flatMap((c) => [c.forward, ...(c.reverse ? [c.reverse] : [])]);
  assert.equal(directions.reduce((n, d) => n + d.packets, 0), traffic.packets.length);
  assert.equal(directions.reduce((n, d) => n + d.octets, 0), traffic.packets.reduce((n, p) => n + p.frame.length - 14, 0));
});

// tshark dissects the capture independently; its per-direction totals must be the expectations.
const FIELDS = [
  'frame.time_epoch', 'ip.src', 'ip.dst', 'ipv6.src', 'ipv6.dst', 'ip.proto', 'ipv6.nxt', 'tcp.srcport', 'tcp.dstport',
  'udp.srcport', 'udp.dstport', 'ip.len', 'ipv6.plen', 'tcp.flags', 'icmp.type', 'icmpv6.type', 'ip.dsfield', 'ipv6.tclass',
];

test('tshark finds valid checksums and exactly the expected flows in the capture', async (t) => {
  if (!requireTools(t, TSHARK)) return;
  const dir = await mkdtemp(join(tmpdir(), 'flowagg-traffic-'));
  try {
    const path = join(dir, 't.pcap');
    await writeFile(path, writePcap(traffic.packets));
    const checks = ['-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE', '-o', 'udp.check_checksum:TRUE'];
    const errors = await runTool('tshark', ['-n', '-r', path, ...checks, '-Y', '_ws.expert.severity == error'], { timeoutMs: 60_000 });
    assert.equal(errors.stdout, '', 'no frame with an error-level finding (bad checksum, malformed)');

    const run = await runTool('tshark', ['-n', '-r', path, '-T', 'fields', '-E', 'separator=/t', ...FIELDS.flatMap((f) => ['-e', f])], { timeoutMs: 60_000 });
    const seen = new Map<string, DirectionFlow>();
    for (const line of run.stdout.trim().split('\n')) {
      const v = Object.fromEntries(line.split('\t').map((x, i) => [FIELDS[i], x]));
      const timeUs = Math.round(Number(v['frame.time_epoch']) * 1e6);
      const ipVersion = v['ip.src'] ? 4 : 6;
      const proto = Number(v['ip.proto'] || v['ipv6.nxt']);
      const icmpType = v['icmp.type'] || v['icmpv6.type'];
      const d: DirectionFlow = {
        ipVersion,
        proto,
        src: (v['ip.src'] || v['ipv6.src']) as string,
        dst: (v['ip.dst'] || v['ipv6.dst']) as string,
        srcPort: Number(v['tcp.srcport'] || v['udp.srcport'] || 0),
        dstPort: Number(v['tcp.dstport'] || v['udp.dstport'] || 0),
        packets: 1,
        octets: ipVersion === 4 ? Number(v['ip.len']) : Number(v['ipv6.plen']) + 40,
        firstUs: timeUs,
        lastUs: timeUs,
        tcpFlags: v['tcp.flags'] ? Number(v['tcp.flags']) : 0,
        tos: Number(v['ip.dsfield'] || v['ipv6.tclass']),
        icmpTypeCode: icmpType ? Number(icmpType) * 256 : 0,
      };
      const key = `${d.src}|${d.dst}|${d.proto}|${d.srcPort}|${d.dstPort}`;
      const old = seen.get(key);
      seen.set(key, old === undefined ? d : { ...old, packets: old.packets + 1, octets: old.octets + d.octets, lastUs: timeUs, tcpFlags: old.tcpFlags | d.tcpFlags, icmpTypeCode: d.icmpTypeCode });
    }
    const byKey = (a: DirectionFlow, b: DirectionFlow) => (a.src + a.dst + a.proto + a.srcPort < b.src + b.dst + b.proto + b.srcPort ? -1 : 1);
    const expected = traffic.conversations.flatMap((c) => [c.forward, ...(c.reverse ? [c.reverse] : [])]);
    assert.deepEqual([...seen.values()].sort(byKey), [...expected].sort(byKey));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
