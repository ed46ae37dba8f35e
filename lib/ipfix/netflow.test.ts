// The codec's NetFlow v9 and v5 reading: headers, template and options template FlowSets keyed by Source ID,
// v9 field types as IANA elements (vendor and scope tables, v9's length rules), v5's fixed record, and the
// errors of malformed packets, each naming what was wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IPFIX_ERR } from './errors.js';
import { decodeNetflow } from './netflow-message.js';
import { NETFLOW_SCOPE_PEN, NETFLOW_VENDOR_PEN, netflowFieldElement } from './netflow-fields.js';
import { TemplateStore } from './template-store.js';
import {
  ROUTER_TEMPLATE, routerValues, SAMPLER_OPTIONS_TEMPLATE, v5Packet, v9DataSet, v9OptionsTemplateSet, v9Packet, v9Record, v9TemplateSet,
} from './testing/netflow-packets.js';

const HEADER = { sysUpTime: 3_600_000, unixSecs: 1_700_000_000, sequence: 41, sourceId: 7 };
const udpStore = () => new TemplateStore({ transport: 'udp' });
const codes = (errors: readonly { code: string }[]) => errors.map((e) => e.code);

describe('NetFlow v9', () => {
  it('decodes a router packet: header, template by Source ID, records under IANA names', () => {
    const store = udpStore();
    const records = [0, 1, 2].map((i) => v9Record(ROUTER_TEMPLATE, routerValues(i, HEADER.sysUpTime)));
    const d = decodeNetflow(v9Packet(HEADER, [v9TemplateSet([ROUTER_TEMPLATE]), v9DataSet(256, records)], 4), store);
    assert.deepEqual(d.errors, []);
    assert.deepEqual(
      { version: d.header.version, count: d.header.count, exportTime: d.header.exportTime, sequence: d.header.sequenceNumber, domain: d.header.observationDomainId, up: d.header.sysUpTime, init: d.header.systemInitTime },
      { version: 9, count: 4, exportTime: 1_700_000_000, sequence: 41, domain: 7, up: 3_600_000, init: 1_700_000_000_000 - 3_600_000 },
    );
    assert.equal(store.get(7, 256)?.fields.length, 20);
    assert.equal(store.get(0, 256), undefined, 'templates are the Source ID\'s');
    assert.equal(d.records.length, 3);
    const names = d.records[0]!.template.fields.map((f) => f.ie.name);
    assert.deepEqual(names.slice(0, 8), ['octetDeltaCount', 'packetDeltaCount', 'protocolIdentifier', 'ipClassOfService', 'tcpControlBits', 'sourceTransportPort', 'sourceIPv4Address', 'sourceIPv4PrefixLength']);
    assert.deepEqual(names.slice(16), ['flowEndSysUpTime', 'flowStartSysUpTime', 'samplerId', 'flowDirection']);
    const values = Object.fromEntries(d.records[1]!.template.fields.map((f, i) => [f.ie.name, d.records[1]!.values[i]]));
    assert.deepEqual(
      { o: values.octetDeltaCount, src: values.sourceIPv4Address, dst: values.destinationIPv4Address, nh: values.ipNextHopIPv4Address, as: values.bgpDestinationAsNumber, end: values.flowEndSysUpTime },
      { o: 3000, src: '198.51.100.1', dst: '203.0.113.7', nh: '192.0.2.254', as: 64502, end: 3_600_000 - 1001 },
    );
  });

  it('keeps two Source IDs\' templates of the same id apart, and a data FlowSet before its template is skipped', () => {
    const store = udpStore();
    const other = { id: 256, fields: [{ type: 8, length: 4 }, { type: 1, length: 8 }] };
    const early = decodeNetflow(v9Packet({ ...HEADER, sourceId: 9 }, [v9DataSet(256, [v9Record(other, ['10.0.0.1', 5])])]), store);
    assert.deepEqual(codes(early.errors), [IPFIX_ERR.UNKNOWN_TEMPLATE]);
    decodeNetflow(v9Packet(HEADER, [v9TemplateSet([ROUTER_TEMPLATE])]), store);
    const d = decodeNetflow(v9Packet({ ...HEADER, sourceId: 9 }, [v9TemplateSet([other]), v9DataSet(256, [v9Record(other, ['10.0.0.1', 5])])]), store);
    assert.deepEqual(d.records.map((r) => r.values), [['10.0.0.1', 5]]);
    assert.equal(store.get(7, 256)?.fields.length, 20);
  });

  it('reads options templates: scope types become IPFIX scope elements, sampler fields IANA ones', () => {
    const store = udpStore();
    const d = decodeNetflow(v9Packet(HEADER, [v9OptionsTemplateSet([SAMPLER_OPTIONS_TEMPLATE]), v9DataSet(257, [v9Record(SAMPLER_OPTIONS_TEMPLATE, [0, 1, 2, 100])])]), store);
    assert.deepEqual(d.errors, []);
    const t = store.get(7, 257)!;
    assert.equal(t.scopeFieldCount, 1);
    assert.deepEqual(t.fields.map((f) => [f.ie.name, f.scope]), [['exportingProcessId', true], ['samplerId', false], ['samplerMode', false], ['samplerRandomInterval', false]]);
    assert.deepEqual(d.records[0]!.values, [0, 1, 2, 100]);
  });

  it('maps vendor types through the table, keeps the others under their own enterprise number, and scope types apart from data types', () => {
    assert.equal(netflowFieldElement(40001, 4, false).name, 'postNATSourceIPv4Address');
    assert.equal(netflowFieldElement(40005, 1, false).name, 'firewallEvent');
    assert.deepEqual([netflowFieldElement(33002, 2, false).pen, netflowFieldElement(33002, 2, false).id], [NETFLOW_VENDOR_PEN, 33002 - 32768]);
    assert.equal(netflowFieldElement(1, 4, true).name, 'exportingProcessId');
    assert.equal(netflowFieldElement(1, 4, false).name, 'octetDeltaCount');
    assert.deepEqual([netflowFieldElement(9, 2, true).pen, netflowFieldElement(9, 2, true).id], [NETFLOW_SCOPE_PEN, 9]);
    assert.equal(netflowFieldElement(225, 4, false).name, 'postNATSourceIPv4Address', 'types above 127 are IANA\'s numbers');
    assert.deepEqual([netflowFieldElement(291, 8, false).name, netflowFieldElement(291, 8, false).type], ['basicList', 'octetArray'], 'v9 has no lists');
  });

  it('accepts any field length: one its element cannot have is read as bytes of that element, not refused', () => {
    const store = udpStore();
    const odd = { id: 300, fields: [{ type: 8, length: 16 }, { type: 1, length: 9 }, { type: 82, length: 65535 }] };
    const record = Buffer.concat([Buffer.alloc(16, 1), Buffer.alloc(9, 2), Buffer.from([4, 0x65, 0x74, 0x68, 0x30])]);
    const d = decodeNetflow(v9Packet(HEADER, [v9TemplateSet([odd]), v9DataSet(300, [record])]), store);
    assert.deepEqual(d.errors, []);
    const t = store.get(7, 300)!;
    assert.deepEqual(t.fields.map((f) => [f.ie.name, f.ie.type]), [['sourceIPv4Address', 'octetArray'], ['octetDeltaCount', 'octetArray'], ['interfaceName', 'string']]);
    assert.deepEqual(d.records[0]!.values, [new Uint8Array(16).fill(1), new Uint8Array(9).fill(2), 'eth0']);
  });

  it('names what is wrong in malformed packets, and decodes the rest', () => {
    const store = udpStore();
    assert.throws(() => decodeNetflow(Buffer.from([0, 9, 0, 1, 0, 0]), store), { code: IPFIX_ERR.NETFLOW_TRUNCATED_HEADER, message: /shorter than the 20-byte NetFlow v9 header/ });
    assert.throws(() => decodeNetflow(Buffer.from([0, 7, 0, 0]), store), { code: IPFIX_ERR.BAD_VERSION, message: /version 7 is neither NetFlow v5 nor v9/ });
    const reserved = Buffer.from([0, 2, 0, 8, 0, 0, 0, 0]);
    const lowId = v9TemplateSet([{ id: 12, fields: [{ type: 8, length: 4 }] }]);
    const empty = v9TemplateSet([{ id: 260, fields: [] }]);
    const good = v9TemplateSet([ROUTER_TEMPLATE]);
    const d = decodeNetflow(v9Packet(HEADER, [reserved, lowId, empty, good, Buffer.from([0, 0])]), store);
    assert.deepEqual(codes(d.errors), [IPFIX_ERR.RESERVED_SET_ID, IPFIX_ERR.TEMPLATE_ID_RESERVED, IPFIX_ERR.NETFLOW_EMPTY_TEMPLATE]);
    assert.equal(d.templates.length, 1, 'the good template after the bad ones, and trailing zeros are padding');
    const overrun = v9Packet(HEADER, [Buffer.from([1, 0, 0, 200, 0, 0, 0, 0])]);
    assert.deepEqual(codes(decodeNetflow(overrun, store).errors), [IPFIX_ERR.SET_OVERRUNS_MESSAGE]);
    const cutOptions = Buffer.from([0, 1, 0, 16, 1, 4, 0, 4, 0, 8, 0, 1, 0, 4, 0, 0]);
    assert.deepEqual(codes(decodeNetflow(v9Packet(HEADER, [cutOptions]), store).errors), [IPFIX_ERR.TRUNCATED_TEMPLATE]);
    const noScope = v9OptionsTemplateSet([{ id: 270, scope: [], fields: [{ type: 34, length: 4 }] }]);
    assert.deepEqual(codes(decodeNetflow(v9Packet(HEADER, [noScope]), store).errors), [IPFIX_ERR.BAD_SCOPE_COUNT]);
  });
});

describe('NetFlow v5', () => {
  const V5 = { sysUpTime: 100_000, unixSecs: 1_700_000_000, unixNsecs: 250_000_000, flowSequence: 90, engineType: 1, engineId: 2, sampling: (1 << 14) | 64 };
  const flow = (i: number) => ({ src: `10.0.0.${i}`, dst: '10.0.1.1', nextHop: '10.0.0.254', input: 3, output: 4, packets: i + 1, octets: 100 * (i + 1), first: 90_000, last: 99_000, srcPort: 1000 + i, dstPort: 80, tcpFlags: 0x12, protocol: 6, tos: 8, srcAs: 65000, dstAs: 65001, srcMask: 24, dstMask: 16 });

  it('decodes the header (engine as the domain, sampling, boot time to the ms) and every record of the fixed layout', () => {
    const d = decodeNetflow(v5Packet(V5, [flow(1), flow(2)]), udpStore());
    assert.deepEqual(d.errors, []);
    assert.deepEqual(
      { domain: d.header.observationDomainId, sequence: d.header.sequenceNumber, sampling: d.header.samplingInterval, init: d.header.systemInitTime },
      { domain: 0x0102, sequence: 90, sampling: 64, init: 1_700_000_000_250 - 100_000 },
    );
    const r = d.records[1]!;
    const values = Object.fromEntries(r.template.fields.map((f, i) => [f.ie.name, r.values[i]]));
    assert.deepEqual(
      [values.sourceIPv4Address, values.ipNextHopIPv4Address, values.ingressInterface, values.packetDeltaCount, values.octetDeltaCount, values.flowStartSysUpTime, values.tcpControlBits, values.bgpSourceAsNumber, values.destinationIPv4PrefixLength],
      ['10.0.0.2', '10.0.0.254', 3, 3, 300, 90_000, 0x12, 65000, 16],
    );
  });

  it('says when the count is out of range or more than the packet holds, and decodes the records it does hold', () => {
    const whole = v5Packet(V5, [flow(1), flow(2), flow(3)]);
    const cut = decodeNetflow(whole.subarray(0, 24 + 48 * 2 + 10), udpStore());
    assert.deepEqual(codes(cut.errors), [IPFIX_ERR.NETFLOW_BAD_COUNT]);
    assert.match(cut.errors[0]!.message, /says it holds 3 records but has room for 2/);
    assert.equal(cut.records.length, 2);
    assert.deepEqual(codes(decodeNetflow(v5Packet({ ...V5, count: 0 }, []), udpStore()).errors), [IPFIX_ERR.NETFLOW_BAD_COUNT]);
    assert.match(decodeNetflow(v5Packet({ ...V5, count: 31 }, [flow(1)]), udpStore()).errors[0]!.message, /holds 31 records; v5 packets hold 1 to 30/);
    assert.throws(() => decodeNetflow(whole.subarray(0, 20), udpStore()), { code: IPFIX_ERR.NETFLOW_TRUNCATED_HEADER });
  });
});
