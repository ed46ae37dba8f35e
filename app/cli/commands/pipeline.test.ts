// `flowagg pipeline` on IPFIX files built with our encoder from reference §9.2's field lists (go-ipfix's
// generated test packets, whose hex in the reference was derived by hand): reference §5.8's golden
// aggregated record, IPv4 and IPv6, whichever Node's record comes first; proxy mode; determinism.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MessageEncoder } from '../../../lib/ipfix/message-encoder.js';
import { makeTemplate, templateField } from '../../../lib/ipfix/testing/templates.js';
import type { FieldValue } from '../../../lib/ipfix/types.js';
import { LINKTYPE, ethernetFrame, pcapFile } from '../../../lib/capture/testing/pcap-files.js';
import { v9DataSet, v9Packet, v9Record, v9TemplateSet } from '../../../lib/ipfix/testing/netflow-packets.js';
import { runTool } from '../../../integration-tests/harness/tools.js';
import { processorConfig } from '../../../processor/config.js';
import { runPipeline } from '../../pipeline.js';

const CLI = join(import.meta.dirname, '../../../bin/flowagg.js');
const TEST_TIME = 1_574_105_162; // 2019-11-18 11:26:02 America/Los_Angeles, the packets' export time

function fields(v6: boolean): string[] {
  const ip = v6 ? 'IPv6' : 'IPv4';
  return [
    `source${ip}Address`, `destination${ip}Address`, 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier', 'flowStartSeconds', 'flowEndSeconds',
    'flowEndReason', 'packetTotalCount', 'packetDeltaCount', 'octetTotalCount', 'sourcePodName', 'destinationPodName', 'destinationServicePort', 'flowType', 'tcpState',
    `destinationCluster${ip}`, `destinationService${ip}`, 'reversePacketTotalCount', 'reversePacketDeltaCount', 'reverseOctetTotalCount',
  ];
}

/** go-ipfix's dataPacket1 (the source Node's record) and dataPacket2 (the destination Node's). */
function records(v6: boolean): [FieldValue[], FieldValue[]] {
  const [src, dst] = v6 ? ['2001:0:3238:dfe1:63::fefb', '2001:0:3238:dfe1:63::fefc'] : ['10.0.0.1', '10.0.0.2'];
  const service = v6 ? '2001:0:3238:bbbb:63::aaaa' : '10.0.0.3';
  const none = v6 ? '::' : '0.0.0.0';
  return [
    [src, dst, 1234, 5678, 6, 1_257_893_000, 1_257_894_000, 2, 800, 500, 800_000, 'pod1', '', 4739, 2, 'ESTABLISHED', service, service, 300, 150, 300_000],
    [src, dst, 1234, 5678, 6, 1_257_893_000, 1_257_896_000, 2, 1000, 500, 1_000_000, '', 'pod2', 0, 2, 'ESTABLISHED', none, none, 400, 200, 400_000],
  ];
}

/** An IPFIX file: the template message, then one message per record, as go-ipfix's test sends them. */
function ipfixFile(v6: boolean, order: readonly number[]): string {
  const template = makeTemplate(256, fields(v6).map((n) => templateField(n)), 1);
  const encoder = new MessageEncoder({ observationDomainId: 1, exportTime: () => TEST_TIME });
  const messages: Uint8Array[] = [];
  encoder.addTemplate(template);
  messages.push(...encoder.flush());
  for (const i of order) {
    encoder.addRecord(template, records(v6)[i]!);
    messages.push(...encoder.flush());
  }
  const path = join(mkdtempSync(join(tmpdir(), 'flowagg-pipeline-test-')), `golden-${v6 ? 6 : 4}-${order.join('')}.ipfix`);
  writeFileSync(path, Buffer.concat(messages));
  return path;
}

async function pipeline(path: string, mode: 'aggregate' | 'proxy'): Promise<Record<string, unknown>[]> {
  const config = processorConfig.parse({ mode, log: { topics: { flowsRawPartitions: 1, flowsProcessedPartitions: 1 } } });
  const lines: string[] = [];
  const problems: string[] = [];
  await runPipeline(path, config, {}, { write: (l) => lines.push(l), report: (l) => problems.push(l) });
  assert.deepEqual(problems, []);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('flowagg pipeline', () => {
  for (const v6 of [false, true]) {
    for (const order of [[0, 1], [1, 0]]) {
      test(`reference §5.8 golden case, ${v6 ? 'IPv6' : 'IPv4'}, ${order[0] === 0 ? 'source' : 'destination'} Node's record first`, async () => {
        const out = await pipeline(ipfixFile(v6, order), 'aggregate');
        assert.equal(out.length, 1, 'the two halves make one aggregated record');
        const r = out[0]!;
        const ip = v6 ? 'IPv6' : 'IPv4';
        const expected: Record<string, unknown> = {
          [`source${ip}Address`]: v6 ? '2001:0:3238:dfe1:63::fefb' : '10.0.0.1', [`destination${ip}Address`]: v6 ? '2001:0:3238:dfe1:63::fefc' : '10.0.0.2',
          sourceTransportPort: 1234, destinationTransportPort: 5678, protocolIdentifier: 6,
          sourcePodName: 'pod1', destinationPodName: 'pod2',
          flowStartSeconds: 1_257_893_000, flowEndSeconds: 1_257_896_000, flowEndSecondsFromSourceNode: 1_257_894_000, flowEndSecondsFromDestinationNode: 1_257_896_000,
          packetDeltaCount: 500, packetTotalCount: 1000, reversePacketDeltaCount: 200, reversePacketTotalCount: 400,
          packetTotalCountFromSourceNode: 800, packetDeltaCountFromSourceNode: 500, packetTotalCountFromDestinationNode: 1000, packetDeltaCountFromDestinationNode: 500,
          reversePacketTotalCountFromSourceNode: 300, reversePacketDeltaCountFromSourceNode: 150, reversePacketTotalCountFromDestinationNode: 400, reversePacketDeltaCountFromDestinationNode: 200,
          octetTotalCount: 1_000_000, reverseOctetTotalCount: 400_000,
          throughput: Math.floor((1_000_000 * 8) / 3000), reverseThroughput: Math.floor((400_000 * 8) / 3000),
          throughputFromSourceNode: (800_000 * 8) / 1000, throughputFromDestinationNode: Math.floor((1_000_000 * 8) / 3000),
          reverseThroughputFromSourceNode: (300_000 * 8) / 1000, reverseThroughputFromDestinationNode: Math.floor((400_000 * 8) / 3000),
          [`destinationCluster${ip}`]: v6 ? '2001:0:3238:bbbb:63::aaaa' : '10.0.0.3', [`destinationService${ip}`]: v6 ? '2001:0:3238:bbbb:63::aaaa' : '10.0.0.3',
          destinationServicePort: 4739, flowEndReason: 2, tcpState: 'ESTABLISHED', flowType: 2,
        };
        for (const [k, v] of Object.entries(expected)) assert.deepEqual(r[k], v, k);
        assert.equal(r[`sourceIP${v6 ? 'v4' : 'v6'}Address`], undefined, 'one address family');
        assert.equal(r.originalObservationDomainId, undefined, 'aggregated records carry no original exporter (Antrea #2361)');
      });
    }
  }

  test('proxy mode: both records, each with the original exporter, its domain and its flowDirection', async () => {
    const out = await pipeline(ipfixFile(false, [0, 1]), 'proxy');
    assert.equal(out.length, 2);
    assert.deepEqual(out.map((r) => [r.flowDirection, r.originalObservationDomainId, r.originalExporterIPv4Address, r.originalExporterIPv6Address]), [[1, 1, '0.0.0.0', '::'], [0, 1, '0.0.0.0', '::']]);
    assert.deepEqual(out.map((r) => r.packetTotalCount), [800, 1000]);
  });

  test('a capture with NetFlow v9 beside Antrea\'s halves: aggregate mode correlates the halves and passes the router\'s record through as it came', async () => {
    const [a, b] = records(false);
    const template = makeTemplate(256, fields(false).map((n) => templateField(n)), 1);
    const agent = (values: FieldValue[]) => {
      const enc = new MessageEncoder({ observationDomainId: 1, exportTime: () => TEST_TIME });
      enc.addTemplate(template);
      enc.addRecord(template, values);
      return Buffer.from(enc.flush()[0]!);
    };
    // The router saw the same 5-tuple.
    const router = { id: 300, fields: [[8, 4], [12, 4], [7, 2], [11, 2], [4, 1], [1, 4], [2, 4], [22, 4], [21, 4], [10, 2]].map(([type, length]) => ({ type: type!, length: length! })) };
    const v9 = v9Packet({ sysUpTime: 60_000, unixSecs: TEST_TIME, sequence: 1, sourceId: 9 }, [v9TemplateSet([router]), v9DataSet(300, [v9Record(router, ['10.0.0.1', '10.0.0.2', 1234, 5678, 6, 999, 9, 50_000, 59_000, 3])])], 2);
    const frame = (src: string, dstPort: number, payload: Buffer) => ethernetFrame({ src, srcPort: 40_000, dst: '192.0.2.9', dstPort, payload });
    const path = join(mkdtempSync(join(tmpdir(), 'flowagg-pipeline-test-')), 'mixed.pcap');
    writeFileSync(path, pcapFile(LINKTYPE.ETHERNET, [frame('192.0.2.1', 4739, agent(a)), frame('192.0.2.254', 2055, v9), frame('192.0.2.2', 4739, agent(b))]));
    const out = await pipeline(path, 'aggregate');
    assert.equal(out.length, 2, 'the correlated flow and the router\'s record');
    const correlated = out.find((r) => r.sourcePodName === 'pod1')!;
    assert.deepEqual([correlated.destinationPodName, correlated.packetDeltaCount, correlated.packetTotalCount], ['pod2', 500, 1000], 'nothing of the router\'s record');
    const passed = out.find((r) => r.octetDeltaCount === 999)!;
    assert.deepEqual([passed.packetDeltaCount, passed.ingressInterface, passed.flowStartMilliseconds, passed.flowEndMilliseconds], [9, 3, TEST_TIME * 1000 - 10_000, TEST_TIME * 1000 - 1000]);
  });

  test('the command: the same file gives the same bytes', async (t) => {
    const path = ipfixFile(false, [1, 0]);
    const runs = await Promise.all([0, 1].map(() => runTool(process.execPath, [CLI, 'pipeline', '--mode', 'aggregate', path], { timeoutMs: 120_000, signal: t.signal })));
    for (const run of runs) assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(runs[0]!.stdout, runs[1]!.stdout);
    assert.equal(runs[0]!.stdout.trim().split('\n').length, 1);
    const usage = await runTool(process.execPath, [CLI, 'pipeline', path], { timeoutMs: 60_000, signal: t.signal, allowFailure: true });
    assert.equal(usage.exitCode, 2);
    assert.match(usage.stderr, /--mode must be aggregate or proxy/);
  });
});
