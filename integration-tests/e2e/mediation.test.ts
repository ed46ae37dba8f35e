// Issue 20's end-to-end test: one collector for every hop. A capture mixes four exporters, as the proxy-mode
// topology has them: an Antrea Agent (IPFIX, Antrea's template), a hypervisor (VMware VDS's real IPFIX, from
// the shared fixtures), a NetFlow v9 router (softflowd -v 9 over generated traffic) and a Cisco-like v9 router
// (AS numbers, next hop, masks, samplers, Source ID 7). Its datagrams are replayed, each exporter from a
// loopback address of its own, to `flowagg run` in Proxy mode, whose IPFIX exporter sends to a collector the
// test owns. Every record of every source is forwarded exactly once, with its original exporter address and
// domain; tshark decodes the output with no warning and with the values it decodes from the input; flowagg's
// own decoder and ipfixDump read the output the same; `flowagg decode` reads the mixed capture.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { capturedMessages } from '../../lib/capture/messages.js';
import { writePcap } from '../../lib/capture/testing/pcap-files.js';
import { decodeMessage } from '../../lib/ipfix/decode-message.js';
import { MessageEncoder } from '../../lib/ipfix/message-encoder.js';
import { TemplateStore } from '../../lib/ipfix/template-store.js';
import { readManifest, readVendorFile } from '../../lib/ipfix/testing/fixtures.js';
import { ipfixDumpValue } from '../../lib/ipfix/testing/ipfixdump.js';
import {
  ROUTER_TEMPLATE, routerValues, SAMPLER_OPTIONS_TEMPLATE, v9DataSet, v9OptionsTemplateSet, v9Packet, v9Record, v9TemplateSet,
} from '../../lib/ipfix/testing/netflow-packets.js';
import { antreaAgentTemplate, antreaAgentValues } from '../../lib/ipfix/testing/templates.js';
import { until } from '../../lib/testing/until.js';
import { startTcpCollector } from '../harness/collector.js';
import { type Run, startRun, stopRun } from '../harness/flowagg-run.js';
import { ipfixDumpMessages } from '../harness/ipfix-peers.js';
import { ethernetFrame } from '../harness/packets.js';
import { exportTraffic } from '../harness/softflowd-export.js';
import { conversationMix, renderTraffic } from '../harness/traffic.js';
import { type TsharkDecode, tsharkDecodeIpfix, tsharkFlows, tsharkFlowTimes, type TsharkRecord } from '../harness/tshark.js';
import { IPFIXDUMP, requireTools, runTool, SOFTFLOWD, TSHARK } from '../harness/tools.js';
import { fromDecoded } from '../interop/comparable.js';

const CLI = join(import.meta.dirname, '../../bin/flowagg.js');
const REVERSE_PEN = 29305;

interface Source {
  readonly name: string;
  /** Its address in the capture, and the loopback address it is replayed from. */
  readonly captured: string;
  readonly replayFrom: string;
  readonly netflow: boolean;
  readonly domain: number;
  readonly messages: readonly Uint8Array[];
}

function agentMessages(): Uint8Array[] {
  const template = antreaAgentTemplate(256, 0x5eed);
  const enc = new MessageEncoder({ observationDomainId: 0x5eed, maxMessageSize: 1400, exportTime: () => 1_700_000_100 });
  enc.addTemplate(template);
  // tshark prints nothing for an empty Antrea string, so that its fields cannot be told apart: none is empty.
  for (let i = 0; i < 60; i++) enc.addRecord(template, antreaAgentValues(i).map((v) => (v === '' ? '-' : v)));
  return enc.flush();
}

function ciscoRouterMessages(): Uint8Array[] {
  const h = (sequence: number) => ({ sysUpTime: 86_400_000, unixSecs: 1_700_000_200, sequence, sourceId: 7 });
  const data = (from: number) => Array.from({ length: 20 }, (_, i) => v9Record(ROUTER_TEMPLATE, routerValues(from + i, 86_400_000, 1 + (i % 2))));
  return [
    v9Packet(h(1), [v9OptionsTemplateSet([SAMPLER_OPTIONS_TEMPLATE]), v9DataSet(257, [v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 1, 2, 100]), v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 2, 2, 1000])])], 3),
    v9Packet(h(2), [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, data(0))], 21),
    v9Packet(h(3), [v9DataSet(256, data(20))], 20),
  ];
}

async function sources(signal: AbortSignal): Promise<Source[]> {
  const vds = readManifest().find((s) => s.name === 'vmware_vds_tpl')!;
  const softflowd = await exportTraffic(renderTraffic(conversationMix({ count: 40, seed: 20 })), { transport: 'udp', bidirectional: false, timeFormat: 'sysUpTime', version: 9, signal });
  return [
    { name: 'Antrea Agent', captured: '10.0.0.11', replayFrom: '127.0.0.11', netflow: false, domain: 0x5eed, messages: agentMessages() },
    { name: 'VMware VDS', captured: '10.0.0.21', replayFrom: '127.0.0.21', netflow: false, domain: 0, messages: vds.files.map(readVendorFile) },
    { name: 'softflowd v9 router', captured: '10.0.0.31', replayFrom: '127.0.0.31', netflow: true, domain: 0, messages: softflowd.messages.map((m) => m.bytes) },
    { name: 'Cisco-like v9 router', captured: '10.0.0.32', replayFrom: '127.0.0.32', netflow: true, domain: 7, messages: ciscoRouterMessages() },
  ];
}

/** The sources' datagrams interleaved (one of each in turn), as a collector's capture has them. */
function mixedCapture(all: readonly Source[]): Buffer {
  const frames = [];
  const longest = Math.max(...all.map((s) => s.messages.length));
  for (let i = 0; i < longest; i++) {
    for (const s of all) {
      const payload = s.messages[i];
      if (payload === undefined) continue;
      const dstPort = s.netflow ? 2055 : 4739;
      frames.push({ timeUs: Date.UTC(2024, 0, 1) * 1000 + frames.length * 1000, frame: ethernetFrame({ src: s.captured, dst: '10.0.0.1', transport: { kind: 'udp', srcPort: 40_000, dstPort }, payload }) });
    }
  }
  return writePcap(frames);
}

/** Replays the capture's datagrams to flowagg, each exporter from its own loopback address, one at a time. */
async function replay(path: string, all: readonly Source[], run: Run): Promise<void> {
  const sockets = new Map(await Promise.all(all.map(async (s) => {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, s.replayFrom, () => resolve()));
    return [s.captured, { socket, port: s.netflow ? run.collectors.netflow! : run.collectors.udp! }] as const;
  })));
  try {
    for (const m of capturedMessages(path)) {
      if (m.kind !== 'message') continue;
      const to = sockets.get(m.exporter!.split(':')[0]!)!;
      const bytes = Buffer.from(m.bytes);
      await new Promise<void>((resolve, reject) => to.socket.send(bytes, to.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
    }
  } finally {
    for (const { socket } of sockets.values()) socket.close();
  }
}

const fieldsOf = (r: TsharkRecord) => new Map(r.fields.filter((f) => f.pen === 0 || f.pen === REVERSE_PEN).map((f) => [`${f.pen}/${f.id}`, f.value]));
/** A flow record's identity in input and output alike: 5-tuple and delta counters (an absent port is 0, as the exporter sends it). */
function identity(r: TsharkRecord): string {
  const f = fieldsOf(r);
  return ['0/8', '0/27', '0/12', '0/28', '0/7', '0/11', '0/4', '0/1', '0/2'].map((k) => String(f.get(k) ?? (k === '0/7' || k === '0/11' ? 0n : ''))).join('|');
}

// The proxy-mode elements flowagg sets, and times, compared apart; paddings carry nothing.
const SET_BY_FLOWAGG = new Set(['0/403', '0/404', '0/405', '0/210', '0/150', '0/151', '0/152', '0/153', '0/21', '0/22']);

test('Proxy mode: records of an Antrea Agent, a hypervisor and two NetFlow v9 routers forwarded once each, with their exporter and domain, decoded the same by tshark', async (t) => {
  if (!requireTools(t, SOFTFLOWD, TSHARK, IPFIXDUMP)) return;
  const all = await sources(t.signal);
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-mediation-'));
  const capture = join(dir, 'mixed.pcap');
  writeFileSync(capture, mixedCapture(all));

  // What tshark decodes from each source's input, flows only.
  const input = new Map<string, { decoded: TsharkDecode; flows: TsharkRecord[] }>();
  for (const s of all) {
    const decoded = await tsharkDecodeIpfix(s.messages, { signal: t.signal });
    input.set(s.replayFrom, { decoded, flows: tsharkFlows(decoded) });
  }
  const total = [...input.values()].reduce((n, i) => n + i.flows.length, 0);
  assert.deepEqual(all.map((s) => input.get(s.replayFrom)!.flows.length > 0), [true, true, true, true], 'every source has flows');

  // flowagg decode reads the mixed capture: IPFIX and NetFlow datagrams, one session per exporter.
  const decoded = await runTool(process.execPath, [CLI, 'decode', capture], { timeoutMs: 60_000, signal: t.signal });
  assert.equal(decoded.stderr, '');
  const lines = decoded.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.filter((l) => 'sourceIPv4Address' in l || 'sourceIPv6Address' in l).length, total);

  const collector = await startTcpCollector();
  t.after(() => collector.close());
  const config = join(dir, 'flowagg.yaml');
  writeFileSync(config, [
    'mode: Proxy', 'aggregatorTransportProtocol: udp',
    'flowCollector:', '  enable: true', `  address: 127.0.0.1:${collector.port}:tcp`, '  batchDelay: 100ms',
    'ingest:', '  host: 127.0.0.1', '  port: 0', '  netflow:', '    enabled: true', '    port: 0', '  grpc:', '    port: 0',
    'apiServer:', '  apiPort: 0', 'kubernetes:', '  enable: false', '',
  ].join('\n'));
  const run = await startRun(dir, { args: ['--config', config] });
  let stopped = false;
  t.after(() => (stopped ? undefined : stopRun(run)));
  await replay(capture, all, run);

  const outputStore = new TemplateStore({ transport: 'tcp' });
  const ours: ReturnType<typeof decodeMessage>['records'] = [];
  let done = 0;
  await until(`the collector receiving ${total} records`, () => {
    for (; done < collector.messages.length; done++) {
      const d = decodeMessage(collector.messages[done]!.bytes, outputStore);
      assert.deepEqual(d.errors, []);
      ours.push(...d.records);
    }
    return ours.length >= total;
  }, { timeoutMs: 60_000 });
  stopped = true;
  await stopRun(run);
  assert.equal(ours.length, total, 'nothing more than the sources sent');

  const messages = collector.messages.map((m) => m.bytes);
  // Proxy mode fills Antrea's label and name strings, empty without Kubernetes: tshark cannot place those.
  const output = await tsharkDecodeIpfix(messages, { signal: t.signal, standardOnly: true });
  assert.deepEqual(output.warnings, []);
  assert.equal(output.records.length, total);

  // flowagg's own decoder reads the output as tshark does (IANA and reverse elements; Antrea's tshark prints as bytes).
  const ianaOnly = (r: ReturnType<typeof fromDecoded>) => ({ ...r, frame: 0, fields: r.fields.filter((f) => f.pen === 0 || f.pen === REVERSE_PEN) });
  output.records.forEach((r, i) => {
    const mine = ianaOnly(fromDecoded(0, { template: ours[i]!.template, values: ours[i]!.values.map((v, k) => (ours[i]!.template.fields[k]!.ie.pen === 0 || ours[i]!.template.fields[k]!.ie.pen === REVERSE_PEN ? v : 0)) }));
    assert.deepEqual({ frame: 0, templateId: r.templateId, fields: r.fields }, mine, `output record ${i + 1}`);
  });

  // Every input flow once, from its exporter and domain, with what tshark read from the input.
  const pools = new Map([...input.keys()].map((from) => [from, new Map<string, TsharkRecord[]>()]));
  for (const [from, { flows }] of input) for (const r of flows) pools.get(from)!.set(identity(r), [...(pools.get(from)!.get(identity(r)) ?? []), r]);
  const perSource = new Map<string, number>();
  for (const out of output.records) {
    const f = fieldsOf(out);
    const from = String(f.get('0/403'));
    const source = all.find((s) => s.replayFrom === from);
    assert.ok(source, `output record from ${from}: one of the sources`);
    assert.equal(f.get('0/405'), BigInt(source.domain), `${source.name}: originalObservationDomainId`);
    assert.equal(f.get('0/404'), '::', `${source.name}: an IPv4 exporter`);
    const candidates = pools.get(from)!.get(identity(out)) ?? [];
    const original = candidates.shift();
    assert.ok(original, `${source.name}: output record ${identity(out)} was sent once, and not more`);
    perSource.set(source.name, (perSource.get(source.name) ?? 0) + 1);
    const inFields = fieldsOf(original);
    for (const [k, v] of f) {
      if (SET_BY_FLOWAGG.has(k) || !inFields.has(k)) continue;
      assert.equal(v, inFields.get(k), `${source.name}, ${identity(out)}: element ${k}`);
    }
    const times = tsharkFlowTimes(input.get(from)!.decoded, original);
    const outTimes = f.has('0/152') ? [Number(f.get('0/152')! as bigint / 1_000_000n), Number(f.get('0/153')! as bigint / 1_000_000n)] : [Number(f.get('0/150')! as bigint / 1_000_000n), Number(f.get('0/151')! as bigint / 1_000_000n)];
    const expectedTimes = f.has('0/152') ? times : times.map((ms) => Math.floor(ms / 1000) * 1000);
    assert.deepEqual(outTimes, expectedTimes, `${source.name}, ${identity(out)}: times`);
  }
  assert.deepEqual(Object.fromEntries(perSource), Object.fromEntries(all.map((s) => [s.name, input.get(s.replayFrom)!.flows.length])));
  assert.deepEqual([...pools.values()].flatMap((p) => [...p.values()].flat()), [], 'every input flow forwarded');

  // ipfixDump reads the mediated stream without a warning, and prints flowagg's values.
  const dump = await ipfixDumpMessages(messages, t.signal);
  assert.deepEqual(dump.warnings, []);
  assert.equal(dump.records.length, total);
  dump.records.forEach((d, i) => {
    const r = ours[i]!;
    assert.equal(d.templateId, r.template.id);
    r.template.fields.forEach((field, k) => {
      const v = r.values[k]!;
      const raw = typeof v === 'string' && field.ie.type === 'string' ? Buffer.from(v) : v instanceof Uint8Array ? v : new Uint8Array(0);
      assert.equal(d.fields[k]!.value, ipfixDumpValue(field, v, raw, false), `record ${i + 1} ${field.ie.name}`);
    });
  });
});
