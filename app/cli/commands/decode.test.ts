// `flowagg decode` end to end (the real command line in a child process): on a vendor sequence
// concatenated into an RFC 5655 file, and on pcap captures the test builds (Ethernet + IPv4 + UDP, and
// Linux cooked + IPv6), checking the JSON lines, the per-exporter sessions and the error reports.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { element, lookupElement } from '../../../lib/ipfix/registry.js';
import { LINKTYPE, ethernetFrame, pcapFile, pcapngFile, sllFrame } from '../../../lib/capture/testing/pcap-files.js';
import { MessageEncoder } from '../../../lib/ipfix/message-encoder.js';
import { readManifest, vendorPath } from '../../../lib/ipfix/testing/fixtures.js';
import { makeTemplate, templateField } from '../../../lib/ipfix/testing/templates.js';
import type { FieldValue, Template } from '../../../lib/ipfix/types.js';
import { ROUTER_TEMPLATE, routerValues, v5Packet, v9DataSet, v9Packet, v9Record, v9TemplateSet } from '../../../lib/ipfix/testing/netflow-packets.js';

const main = fileURLToPath(new URL('../main.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'flowagg-decode-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function flowagg(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const jsonLines = (s: string) => s.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

function messages(template: Template, rows: FieldValue[][], odid = template.observationDomainId): Buffer[] {
  const enc = new MessageEncoder({ observationDomainId: odid, exportTime: () => 1_700_000_000 });
  enc.addTemplate(template);
  for (const r of rows) enc.addRecord(template, r);
  return enc.flush().map((m) => Buffer.from(m));
}

describe('flowagg decode', () => {
  it('decodes a vendor sequence concatenated into an IPFIX file', () => {
    const seq = readManifest().find((s) => s.name === 'openbsd_pflow_tpl');
    assert.ok(seq);
    const path = join(dir, 'pflow.ipfix');
    writeFileSync(path, Buffer.concat(seq.files.map((f) => readFileSync(vendorPath(f)))));
    const r = flowagg('decode', path);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    const recs = jsonLines(r.stdout);
    assert.equal(recs.length, seq.dataRecords);
    assert.deepEqual(recs[0], {
      '@observationDomainId': 42, '@templateId': 256, '@exportTime': 1469107837, '@sequenceNumber': 0, '@offset': 124,
      sourceIPv4Address: '192.168.0.17', destinationIPv4Address: '192.168.0.1', ingressInterface: 1, egressInterface: 1,
      packetDeltaCount: 7, octetDeltaCount: 373, flowStartMilliseconds: 1469107799000, flowEndMilliseconds: 1469107799000,
      sourceTransportPort: 64020, destinationTransportPort: 80, ipClassOfService: 0, protocolIdentifier: 6,
    });
    const text = flowagg('decode', path, '--format', 'text');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /--- template 256: 12 fields ---/);
    assert.match(text.stdout, /sourceIPv4Address : 192\.168\.0\.17/);
    assert.match(text.stdout, /flowStartMilliseconds : 2016-07-21T13:29:59\.000Z/);
  });

  it('decodes an Ethernet/IPv4 pcap with one template session per exporter, and keys values by element name', () => {
    // Two exporters use template 256 for different layouts: only per-session templates decode both.
    const a = makeTemplate(256, [templateField('sourceIPv4Address'), templateField('octetDeltaCount'), templateField('sourceIPv4Address'),
      { ie: lookupElement(4242, 7), length: 2, scope: false }, templateField('reverseOctetDeltaCount')], 1);
    const b = makeTemplate(256, [templateField('sourcePodName'), templateField('flowStartNanoseconds')], 1);
    const frames = [
      ...messages(a, [['10.0.0.1', 2n ** 60n, '10.0.0.2', new Uint8Array([0xbe, 0xef]), 5]]).map((payload) => ethernetFrame({ src: '192.0.2.1', srcPort: 5000, dst: '192.0.2.9', dstPort: 4739, payload })),
      ...messages(b, [['frontend-1', 1_700_000_000_123_456_789n]]).map((payload) => ethernetFrame({ src: '192.0.2.2', srcPort: 5000, dst: '192.0.2.9', dstPort: 4739, payload }, 7)),
    ];
    const path = join(dir, 'v4.pcap');
    writeFileSync(path, pcapFile(LINKTYPE.ETHERNET, frames));
    const r = flowagg('decode', path);
    assert.equal(r.stderr, '');
    assert.deepEqual(jsonLines(r.stdout), [
      { '@exporter': '192.0.2.1:5000', '@observationDomainId': 1, '@templateId': 256, '@exportTime': 1_700_000_000, '@sequenceNumber': 0, '@offset': 24,
        sourceIPv4Address: ['10.0.0.1', '10.0.0.2'], octetDeltaCount: '1152921504606846976', 'e4242.7': 'beef', reverseOctetDeltaCount: 5 },
      { '@exporter': '192.0.2.2:5000', '@observationDomainId': 1, '@templateId': 256, '@exportTime': 1_700_000_000, '@sequenceNumber': 0, '@offset': 24 + 16 + frames[0]!.length,
        sourcePodName: 'frontend-1', flowStartNanoseconds: '1700000000123456789' },
    ]);
    assert.equal(element('reverseOctetDeltaCount').pen, 29305);
  });

  it('decodes NetFlow v9 and v5 datagrams of a capture beside IPFIX ones, under the IPFIX names their fields map to', () => {
    const h = { sysUpTime: 3_600_000, unixSecs: 1_700_000_000, sequence: 5, sourceId: 7 };
    const v9 = v9Packet(h, [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, [v9Record(ROUTER_TEMPLATE, routerValues(0, h.sysUpTime))])], 2);
    const v5 = v5Packet({ sysUpTime: 60_000, unixSecs: 1_700_000_001, unixNsecs: 0, flowSequence: 30, engineType: 1, engineId: 2, sampling: 0 },
      [{ src: '10.0.0.1', dst: '10.0.0.2', packets: 2, octets: 80, first: 1000, last: 2000, srcPort: 1, dstPort: 2, protocol: 17 }]);
    const ipfix = messages(makeTemplate(256, [templateField('sourceIPv4Address')], 1), [['10.9.9.9']])[0]!;
    const frame = (payload: Buffer, src: string) => ethernetFrame({ src, srcPort: 9995, dst: '192.0.2.9', dstPort: 2055, payload });
    const path = join(dir, 'netflow.pcap');
    writeFileSync(path, pcapFile(LINKTYPE.ETHERNET, [frame(v9, '192.0.2.1'), frame(v5, '192.0.2.1'), frame(ipfix, '192.0.2.1')]));
    const r = flowagg('decode', path);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    const [a, b, c] = jsonLines(r.stdout);
    assert.deepEqual(
      [a!['@version'], a!['@sysUpTime'], a!['@observationDomainId'], a!['@sequenceNumber'], a!.sourceIPv4Address, a!.octetDeltaCount, a!.flowEndSysUpTime, a!.bgpSourceAsNumber],
      [9, 3_600_000, 7, 5, '198.51.100.0', 1500, 3_599_000, 64500],
    );
    assert.deepEqual(
      [b!['@version'], b!['@observationDomainId'], b!['@templateId'], b!.sourceIPv4Address, b!.packetDeltaCount, b!.flowStartSysUpTime, b!.protocolIdentifier, b!.paddingOctets],
      [5, 0x0102, 0, '10.0.0.1', 2, 1000, 17, ['00', '0000']],
    );
    assert.deepEqual([c!['@version'], c!.sourceIPv4Address], [undefined, '10.9.9.9'], 'the same exporter\'s IPFIX is a session of its own');
    const text = flowagg('decode', path, '--format', 'text');
    assert.match(text.stdout, /=== NetFlow v9 packet at byte 24 from 192\.0\.2\.1:9995: \d+ bytes, source id 7, sysUpTime 3600000 ms, sequence 5/);
    assert.match(text.stdout, /=== NetFlow v5 packet at byte \d+ from 192\.0\.2\.1:9995: 72 bytes, engine 258/);
  });

  it('decodes a Linux cooked IPv6 pcapng, reports errors with their byte offset and goes on', () => {
    const t = makeTemplate(300, [templateField('sourceIPv6Address'), templateField('destinationTransportPort')], 9);
    const [withTemplate] = messages(t, [['2001:db8::5', 443]]);
    const src = (n: number) => ({ src: `2001:db8::${n}`, srcPort: 9995, dst: '2001:db8::ff', dstPort: 4739 });
    const frames = [sllFrame({ ...src(2), payload: withTemplate! }), sllFrame({ ...src(1), payload: withTemplate! })];
    const path = join(dir, 'v6.pcapng');
    writeFileSync(path, pcapngFile(LINKTYPE.LINUX_SLL, frames));
    const r = flowagg('decode', path);
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.deepEqual(jsonLines(r.stdout).map((x) => [x['@exporter'], x['@observationDomainId'], x.sourceIPv6Address, x.destinationTransportPort]), [
      ['[2001:db8::2]:9995', 9, '2001:db8::5', 443],
      ['[2001:db8::1]:9995', 9, '2001:db8::5', 443],
    ]);

    // A file whose second message refers to a template nobody defined.
    const orphan = Buffer.from(withTemplate!);
    orphan.writeUInt16BE(0x0200, 16 + orphan.readUInt16BE(18)); // data set id 512
    const file = join(dir, 'orphan.ipfix');
    writeFileSync(file, Buffer.concat([withTemplate!, orphan, withTemplate!]));
    const o = flowagg('decode', file);
    assert.equal(o.code, 1);
    assert.equal(jsonLines(o.stdout).length, 2, 'decoding continued after the bad message');
    assert.match(o.stderr, new RegExp(`byte ${withTemplate!.length + 16 + orphan.readUInt16BE(18)}: data set for unknown template 512 .*\\[FLOWAGG_ERR_IPFIX_UNKNOWN_TEMPLATE\\]`));
  });

  it('explains its usage', () => {
    assert.match(flowagg('decode', '--help').stdout, /Usage: flowagg decode FILE/);
    assert.equal(flowagg('decode').code, 2);
    assert.equal(flowagg('decode', 'x', '--format', 'xml').code, 2);
  });
});
