// NetFlow packets of a session → FlowRecords: times from the header's clocks (across a sysUpTime wrap),
// sampling from options records (per sampler and for the Source ID) and from v5 headers, provenance that
// follows the datagram, and the compiled transcoder writing the bytes of the reference builder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flowRecordReader, type FlowRecord } from '../schemas/flow-record.js';
import { RunWriter } from './records/run-writer.js';
import { recordsOfRuns } from '../lib/log/record-runs.js';
import {
  ROUTER_TEMPLATE, routerValues, SAMPLER_OPTIONS_TEMPLATE, v5Packet, v9DataSet, v9OptionsTemplateSet, v9Packet, v9Record, v9TemplateSet,
} from '../lib/ipfix/testing/netflow-packets.js';
import { TranscoderCache } from './records/transcoder-cache.js';
import { ExporterSession, type SessionProtocol } from './session.js';
import { transcodeMessage } from './transcode-message.js';

const reader = flowRecordReader();

function session(protocol: SessionProtocol, compileAfterRecords: number) {
  const s = new ExporterSession('udp', { address: '192.0.2.9', port: 2000 }, { templateTtlMs: 60_000, now: () => 0 }, protocol);
  const cache = new TranscoderCache({ maxLayouts: 16, compileAfterRecords });
  return {
    session: s,
    run: (packet: Buffer) => {
      const t = transcodeMessage(s, packet, new RunWriter(), 1_700_000_123_000, cache);
      return { ...t, flows: recordsOfRuns(t.runs).map((r) => reader.decode(Buffer.from(r.value!))) };
    },
  };
}

const HEADER = { sysUpTime: 7_200_000, unixSecs: 1_700_000_100, sequence: 1, sourceId: 3 };

for (const compileAfterRecords of [0, 1000]) {
  const path = compileAfterRecords === 0 ? 'compiled' : 'interpreted';

  test(`v9 (${path}): absolute times from the header, samplers' intervals from options records, provenance of the datagram`, () => {
    const { session: s, run } = session('netflow_v9', compileAfterRecords);
    const options = v9Packet(HEADER, [v9OptionsTemplateSet([SAMPLER_OPTIONS_TEMPLATE]), v9DataSet(257, [
      v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 1, 2, 100]),
      v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 2, 2, 1000]),
    ])]);
    assert.equal(run(options).optionsRecords, 2);
    const records = [v9Record(ROUTER_TEMPLATE, routerValues(0, HEADER.sysUpTime, 1)), v9Record(ROUTER_TEMPLATE, routerValues(1, HEADER.sysUpTime, 2)), v9Record(ROUTER_TEMPLATE, routerValues(2, HEADER.sysUpTime, 9))];
    s.movedTo(2001);
    const t = run(v9Packet({ ...HEADER, sequence: 2 }, [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, records)]));
    assert.deepEqual(t.errors, []);
    const init = 1_700_000_100_000 - HEADER.sysUpTime;
    const [a, b, c] = t.flows as [FlowRecord, FlowRecord, FlowRecord];
    assert.deepEqual(
      { transport: a.transport, port: a.exporterPort, domain: a.observationDomainId, template: a.templateId, export: a.exportTime, start: a.flowStartMilliseconds, end: a.flowEndMilliseconds, source: a.flowStartSource },
      { transport: 'netflow_v9', port: 2001, domain: 3, template: 256, export: 1_700_000_100_000, start: init + HEADER.sysUpTime - 6000, end: init + HEADER.sysUpTime - 1000, source: 'sysUpTime' },
    );
    assert.deepEqual([a.samplingInterval, b.samplingInterval, c.samplingInterval], [100, 1000, null], 'by the record\'s sampler; one never announced says nothing');
    assert.deepEqual([a.tcpControlBits, a.ingressInterface, a.egressInterface, a.bgpDestinationAsNumber, a.sourceIPv4PrefixLength, a.flowDirection], [0, 1, 5, 64501, 24, 0]);
    assert.deepEqual(a.extras.map((x) => [x.pen, x.id, [...x.value]]), [[0, 48, [1]]], 'every field but samplerId is typed; it is kept');
  });

  test(`v9 (${path}): a flow that started before sysUpTime wrapped is still in the past, and a domain-wide interval applies to every sampler`, () => {
    const { run } = session('netflow_v9', compileAfterRecords);
    const systemOptions = { id: 258, scope: [{ type: 1, length: 4 }], fields: [{ type: 34, length: 4 }, { type: 35, length: 1 }] };
    const up = 5000;
    const values = routerValues(0, up);
    values[16] = (up - 3000) >>> 0; // last: 3 s ago
    values[17] = (up - 20_000 + 2 ** 32) >>> 0; // first: 20 s ago, before the counter wrapped
    const t = run(v9Packet({ ...HEADER, sysUpTime: up }, [
      v9OptionsTemplateSet([systemOptions]), v9DataSet(258, [v9Record(systemOptions, [0, 64, 2])]),
      v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, [v9Record(ROUTER_TEMPLATE, values)]),
    ]));
    assert.deepEqual(t.errors, []);
    const exportMs = HEADER.unixSecs * 1000;
    assert.deepEqual([t.flows[0]!.flowStartMilliseconds, t.flows[0]!.flowEndMilliseconds, t.flows[0]!.samplingInterval], [exportMs - 20_000, exportMs - 3000, 64]);
  });

  test(`v5 (${path}): the fixed record typed, the header's boot time to the ms, engine as domain, its sampling interval`, () => {
    const { run } = session('netflow_v5', compileAfterRecords);
    const h = { sysUpTime: 60_000, unixSecs: 1_700_000_200, unixNsecs: 123_456_789, flowSequence: 10, engineType: 0, engineId: 5, sampling: (1 << 14) | 10 };
    const t = run(v5Packet(h, [{ src: '10.1.1.1', dst: '10.2.2.2', packets: 4, octets: 400, first: 50_000, last: 59_000, srcPort: 5353, dstPort: 53, protocol: 17, tos: 4, input: 2, output: 3, srcAs: 1, dstAs: 2, srcMask: 8, dstMask: 9, nextHop: '10.0.0.1' }]));
    assert.deepEqual(t.errors, []);
    const f = t.flows[0]!;
    const init = 1_700_000_200_123 - 60_000;
    assert.deepEqual(
      [f.transport, f.observationDomainId, f.sequenceNumber, f.templateId, f.flowStartMilliseconds, f.flowEndMilliseconds, f.samplingInterval, f.packetDeltaCount, f.octetDeltaCount, f.ipClassOfService, f.destinationTransportPort],
      ['netflow_v5', 5, 10, 0, init + 50_000, init + 59_000, 10, 4, 400, 4, 53],
    );
    assert.deepEqual(f.extras, [], 'the pads carry nothing and go nowhere');
  });
}
