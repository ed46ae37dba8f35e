// RFC 7011 behaviour of the decoder beyond the vendor captures: template scoping, withdrawal,
// expiry, reserved ids, duplicate elements, both variable-length forms, reduced-size encoding,
// every abstract data type, and set-level errors that leave the rest of the message decoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { element } from './registry.js';
import { decodeMessage } from './decode-message.js';
import { IPFIX_ERR } from './errors.js';
import { MessageEncoder } from './message-encoder.js';
import { TemplateStore } from './template-store.js';
import { makeTemplate, templateField as field } from './testing/templates.js';
import { type FieldValue, type Template, VARIABLE_LENGTH } from './types.js';

/** A message from hex pieces; the header's length field is filled in. */
function message(odid: number, ...sets: string[]): Buffer {
  const body = Buffer.from(sets.join('').replace(/\s+/g, ''), 'hex');
  const head = Buffer.alloc(16);
  head.writeUInt16BE(10, 0);
  head.writeUInt16BE(16 + body.length, 2);
  head.writeUInt32BE(1_700_000_000, 4);
  head.writeUInt32BE(odid, 12);
  return Buffer.concat([head, body]);
}

function set(id: number, hex: string): string {
  const body = hex.replace(/\s+/g, '');
  return id.toString(16).padStart(4, '0') + (4 + body.length / 2).toString(16).padStart(4, '0') + body;
}

const TEMPLATE_256 = set(2, '0100 0002 0008 0004 0007 0002'); // 256: sourceIPv4Address(4), sourceTransportPort(2)
const TEMPLATE_256_OTHER = set(2, '0100 0001 000c 0004'); // 256: destinationIPv4Address(4)
const DATA_256 = set(256, '0a000001 0050');

function encodeOne(template: Template, values: FieldValue[]): Buffer {
  const enc = new MessageEncoder({ observationDomainId: template.observationDomainId, exportTime: () => 1 });
  enc.addTemplate(template);
  enc.addRecord(template, values);
  const [m] = enc.flush();
  assert.ok(m);
  return Buffer.from(m);
}

describe('decodeMessage', () => {
  it('decodes a template and data in one message, the data set after the template set', () => {
    const m = decodeMessage(message(7, TEMPLATE_256, DATA_256), new TemplateStore({ transport: 'udp' }));
    assert.deepEqual(m.errors, []);
    assert.deepEqual(m.records.map((r) => r.values), [['10.0.0.1', 80]]);
    assert.equal(m.records[0]?.template.observationDomainId, 7);
  });

  it('scopes templates per observation domain and per session (store)', () => {
    const a = new TemplateStore({ transport: 'udp' });
    const b = new TemplateStore({ transport: 'udp' });
    decodeMessage(message(1, TEMPLATE_256), a);
    decodeMessage(message(2, TEMPLATE_256_OTHER), a);
    decodeMessage(message(1, TEMPLATE_256_OTHER), b);
    assert.deepEqual(decodeMessage(message(1, DATA_256), a).records[0]?.values, ['10.0.0.1', 80]);
    assert.deepEqual(decodeMessage(message(1, set(256, '0a000002')), b).records[0]?.values, ['10.0.0.2']);
    assert.deepEqual(decodeMessage(message(2, set(256, '0a000003')), a).records[0]?.values, ['10.0.0.3']);
    const unknown = decodeMessage(message(3, DATA_256), a);
    assert.deepEqual(unknown.errors.map((e) => [e.code, e.context.templateId, e.context.observationDomainId]), [[IPFIX_ERR.UNKNOWN_TEMPLATE, 256, 3]]);
  });

  it('honours withdrawals over TCP, one template or all, and ignores them over UDP', () => {
    const withdrawOne = set(2, '0100 0000');
    const withdrawAll = set(2, '0002 0000');
    for (const transport of ['tcp', 'udp'] as const) {
      const store = new TemplateStore({ transport });
      decodeMessage(message(1, TEMPLATE_256, set(2, '0101 0001 000c 0004')), store);
      const m = decodeMessage(message(1, withdrawOne), store);
      assert.deepEqual(m.withdrawals, transport === 'tcp' ? [{ observationDomainId: 1, templateId: 256 }] : []);
      assert.equal(store.get(1, 256) === undefined, transport === 'tcp');
      decodeMessage(message(1, withdrawAll), store);
      assert.equal(store.size, transport === 'tcp' ? 0 : 2);
    }
  });

  it('expires UDP templates after the TTL (injected clock), refreshed when sent again; TCP ones never', () => {
    let now = 0;
    const udp = new TemplateStore({ transport: 'udp', templateTtlMs: 1000, now: () => now });
    const tcp = new TemplateStore({ transport: 'tcp', templateTtlMs: 1000, now: () => now });
    decodeMessage(message(1, TEMPLATE_256), udp);
    decodeMessage(message(1, TEMPLATE_256), tcp);
    now = 900;
    decodeMessage(message(1, TEMPLATE_256), udp); // refresh
    now = 1800;
    assert.equal(decodeMessage(message(1, DATA_256), udp).records.length, 1);
    now = 2000;
    assert.deepEqual(decodeMessage(message(1, DATA_256), udp).errors.map((e) => e.code), [IPFIX_ERR.UNKNOWN_TEMPLATE]);
    assert.equal(decodeMessage(message(1, DATA_256), tcp).records.length, 1);
  });

  it('rejects template ids below 256 and still decodes the rest of the set', () => {
    const m = decodeMessage(message(1, set(2, '00ff 0001 0008 0004  0100 0001 0008 0004')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors.map((e) => [e.code, e.context.templateId, e.context.offset]), [[IPFIX_ERR.TEMPLATE_ID_RESERVED, 255, 20]]);
    assert.deepEqual(m.templates.map((t) => t.id), [256]);
  });

  it('keeps duplicate elements, in order', () => {
    const m = decodeMessage(message(1, set(2, '0100 0003 0008 0004 0008 0004 00d2 0001'), set(256, '01020304 05060708 00')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.records[0]?.values, ['1.2.3.4', '5.6.7.8', new Uint8Array([0])]);
    assert.deepEqual(m.records[0]?.template.fields.map((f) => f.ie.name), ['sourceIPv4Address', 'sourceIPv4Address', 'paddingOctets']);
  });

  it('reads both variable-length forms: 1-byte and 255 + 2-byte lengths', () => {
    const long = 'x'.repeat(300);
    const hex = `03616263 ff012c${Buffer.from(long).toString('hex')} ff0003646566`;
    const m = decodeMessage(message(1, set(2, '0100 0003 0052 ffff 0052 ffff 0052 ffff'), set(256, hex)), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.deepEqual(m.records[0]?.values, ['abc', long, 'def']);
  });

  it('reads reduced-size integers and a float64 sent in 4 bytes', () => {
    // octetDeltaCount (u64) in 4 and 3 bytes, ingressInterface (u32) in 2, samplingProbability (float64) in 4, a signed32 in 2
    const tpl = set(2, '0100 0005 0001 0004 0001 0003 000a 0002 0137 0004 01b2 0002');
    const data = set(256, 'ffffffff 010203 0102 3fc00000 fffe');
    const m = decodeMessage(message(1, tpl, data), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.equal(element('mibObjectValueInteger').type, 'signed32');
    assert.deepEqual(m.records[0]?.values, [4294967295, 0x010203, 0x0102, 1.5, -2]);
  });

  it('rejects a template whose field length its type cannot have', () => {
    const m = decodeMessage(message(1, set(2, '0100 0001 0008 0003')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors.map((e) => e.code), [IPFIX_ERR.BAD_FIELD_LENGTH]);
    assert.equal(m.templates.length, 0);
  });

  it('reports a bad boolean for that record only', () => {
    const tpl = set(2, '0100 0002 0114 0001 0007 0002'); // dataRecordsReliability (boolean), sourceTransportPort
    const m = decodeMessage(message(1, tpl, set(256, '01 0001  07 0002  02 0003')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.records.map((r) => r.values), [[true, 1], [false, 3]]);
    assert.deepEqual(m.errors.map((e) => [e.code, e.context.offset, e.context.templateId]), [[IPFIX_ERR.BAD_BOOLEAN, 36 + 3, 256]]);
  });

  it('reports a truncated record and a reserved set id, and decodes the sets around them', () => {
    const tpl = set(2, '0100 0001 0052 ffff');
    const m = decodeMessage(message(1, tpl, set(256, '02 6869 05 616263'), set(4, '00000000'), set(256, '01 7a')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.records.map((r) => r.values), [['hi'], ['z']]);
    assert.deepEqual(m.errors.map((e) => [e.code, e.context.setIndex]), [[IPFIX_ERR.TRUNCATED_RECORD, 1], [IPFIX_ERR.RESERVED_SET_ID, 2]]);
  });

  it('stops at a zero-length set and at a set that overruns the message', () => {
    const store = new TemplateStore({ transport: 'tcp' });
    assert.deepEqual(decodeMessage(message(1, TEMPLATE_256, '01000000', DATA_256), store).errors.map((e) => e.code), [IPFIX_ERR.SHORT_SET]);
    assert.deepEqual(decodeMessage(message(1, '0100ffff0a000001'), store).errors.map((e) => e.code), [IPFIX_ERR.SET_OVERRUNS_MESSAGE]);
  });

  it('treats a tail shorter than a record as padding', () => {
    const m = decodeMessage(message(1, TEMPLATE_256, set(256, '0a000001 0050 000000')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.equal(m.records.length, 1);
  });

  it('decodes options templates with their scope fields', () => {
    const m = decodeMessage(message(1, set(3, '0200 0002 0001 0095 0004 0029 0008'), set(512, '00000001 0000000000000064')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.equal(m.templates[0]?.scopeFieldCount, 1);
    assert.deepEqual(m.templates[0]?.fields.map((f) => [f.ie.name, f.scope]), [['observationDomainId', true], ['exportedMessageTotalCount', false]]);
    assert.deepEqual(m.records[0]?.values, [1, 100]);
  });

  it('keeps unknown enterprise elements as raw bytes named e<pen>.<id>', () => {
    const m = decodeMessage(message(1, set(2, '0100 0001 8123 0003 00001234'), set(256, 'aabbcc')), new TemplateStore({ transport: 'tcp' }));
    assert.equal(m.records[0]?.template.fields[0]?.ie.name, 'e4660.291');
    assert.deepEqual(m.records[0]?.values, [new Uint8Array([0xaa, 0xbb, 0xcc])]);
  });

  it('decodes every abstract data type, with the representations documented in types.ts', () => {
    const names: [string, number?][] = [
      ['octetDeltaCount'], ['ingressInterface'], ['sourceTransportPort'], ['protocolIdentifier'],
      ['mibObjectValueInteger'], ['samplingProbability'], ['dataRecordsReliability'], ['sourceMacAddress'], ['interfaceName'],
      ['flowStartSeconds'], ['flowStartMilliseconds'], ['flowStartMicroseconds'], ['flowStartNanoseconds'],
      ['sourceIPv4Address'], ['sourceIPv6Address'], ['paddingOctets', 3], ['postNATSourceIPv4Address'],
    ];
    const template = makeTemplate(300, names.map(([n, len]) => field(n, len)), 9);
    const ns = 1_700_000_000_123_456_789n;
    const values: FieldValue[] = [
      2n ** 63n, 4294967295, 65535, 255, -2147483648, 0.25, false, '00:0c:29:70:86:09', 'eth0 ✓', 1_700_000_000,
      1_700_000_000_123, 1_700_000_000_123_457_000n, ns, '192.0.2.1', '2001:db8::1', new Uint8Array([1, 2, 3]), '0.0.0.0',
    ];
    const types = template.fields.map((f) => f.ie.type);
    for (const t of ['unsigned64', 'unsigned32', 'unsigned16', 'unsigned8', 'signed32', 'float64', 'boolean', 'macAddress', 'string',
      'dateTimeSeconds', 'dateTimeMilliseconds', 'dateTimeMicroseconds', 'dateTimeNanoseconds', 'ipv4Address', 'ipv6Address', 'octetArray']) {
      assert.ok(types.includes(t as never), `covers ${t}`);
    }
    const wire = encodeOne(template, values);
    const m = decodeMessage(wire, new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.deepEqual(m.records[0]?.values, values);
    // Wire forms that a round trip alone would not pin down: boolean false = 2, NTP seconds since 1900.
    const rec = wire.subarray(16 + wire.readUInt16BE(18) + 4);
    assert.equal(wire.readUInt16BE(16 + wire.readUInt16BE(18)), 300, 'data set of template 300');
    assert.equal(rec.readBigUInt64BE(0), 2n ** 63n);
    assert.equal(rec[27], 2, 'boolean false is 2 on the wire');
    assert.equal(rec[34], Buffer.byteLength('eth0 ✓'), 'string length prefix');
    assert.equal(rec.readUInt32BE(55), 1_700_000_000 + 2_208_988_800, 'NTP seconds since 1900');
    assert.equal(rec.readUInt32BE(59), Math.round(0.123457 * 2 ** 32), 'NTP fraction of 123457 µs');
  });

  it('decodes RFC 6313 lists as nested values and bounds their nesting', () => {
    const store = new TemplateStore({ transport: 'tcp' });
    const inner = makeTemplate(400, [field('sourceMacAddress'), field('destinationMacAddress')], 1);
    decodeMessage(encodeOne(inner, ['00:01:02:03:04:05', '06:07:08:09:0a:0b']), store);
    const outer = makeTemplate(401, [
      { ie: element('basicList'), length: VARIABLE_LENGTH, scope: false },
      { ie: element('subTemplateList'), length: VARIABLE_LENGTH, scope: false },
      { ie: element('subTemplateMultiList'), length: VARIABLE_LENGTH, scope: false },
    ], 1);
    const innerRecord = { template: store.get(1, 400) as Template, values: ['00:01:02:03:04:05', '06:07:08:09:0a:0b'] as FieldValue[] };
    const values: FieldValue[] = [
      { kind: 'basicList', semantic: 3, ie: element('sourceIPv4Address'), fieldLength: 4, values: ['10.0.0.1', '10.0.0.2'] },
      { kind: 'subTemplateList', semantic: 3, templateId: 400, records: [innerRecord, innerRecord] },
      { kind: 'subTemplateMultiList', semantic: 4, entries: [{ templateId: 400, records: [innerRecord] }] },
    ];
    const m = decodeMessage(encodeOne(outer, values), store);
    assert.deepEqual(m.errors, []);
    assert.deepEqual(m.records[0]?.values, values);

    // A basicList of basicLists nested far deeper than allowed is a record error, not a stack overflow.
    let content = Buffer.from('03 0008 0004 0a000001'.replace(/ /g, ''), 'hex');
    for (let depth = 0; depth < 1000 && content.length < 60000; depth++) {
      const len = content.length < 255 ? Buffer.from([content.length]) : Buffer.from([255, content.length >> 8, content.length & 255]);
      content = Buffer.concat([Buffer.from('03 0123 ffff'.replace(/ /g, ''), 'hex'), len, content]);
    }
    const head = Buffer.from([255, content.length >> 8, content.length & 255]);
    const deep = decodeMessage(message(1, set(2, '0100 0001 0123 ffff'), set(256, Buffer.concat([head, content]).toString('hex'))), store);
    assert.deepEqual(deep.errors.map((e) => e.code), [IPFIX_ERR.BAD_LIST]);
  });

  it('throws typed errors for message-level problems', () => {
    const store = new TemplateStore({ transport: 'udp' });
    assert.throws(() => decodeMessage(new Uint8Array(10), store), { code: IPFIX_ERR.TRUNCATED_HEADER });
    const v9 = message(1);
    v9.writeUInt16BE(9, 0);
    assert.throws(() => decodeMessage(v9, store), { code: IPFIX_ERR.BAD_VERSION });
    const short = message(1);
    short.writeUInt16BE(12, 2);
    assert.throws(() => decodeMessage(short, store), { code: IPFIX_ERR.LENGTH_MISMATCH });
  });

  it('gives records of one template the same shape', () => {
    const m = decodeMessage(message(1, TEMPLATE_256, set(256, '0a000001 0050 0a000002 0051')), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(Object.keys(m.records[0] ?? {}), Object.keys(m.records[1] ?? {}));
    assert.equal(m.records[0]?.template, m.records[1]?.template);
  });
});

describe('interpreted and compiled decoders', () => {
  it('decode exactly alike', async () => {
    const { interpretedDecoder, recordDecoder } = await import('./record-decoder.js');
    const { antreaAgentTemplate, antreaAgentValues } = await import('./testing/templates.js');
    const t = antreaAgentTemplate();
    const wire = encodeOne(t, antreaAgentValues(7));
    const store = new TemplateStore({ transport: 'tcp' });
    const [rec] = decodeMessage(wire, store, { compileNow: true }).records;
    const start = 16 + wire.readUInt16BE(18) + 4;
    const cx = { store, observationDomainId: t.observationDomainId, depth: 0, maxDepth: 8, next: 0 };
    const viaInterpreter = interpretedDecoder(rec!.template)(wire, start, wire.length, cx);
    assert.deepEqual(viaInterpreter?.values, rec?.values);
    assert.equal(cx.next, wire.length);
    const compiled = recordDecoder(rec!.template).decode;
    assert.equal(compiled.name, 'decodeTemplate256', 'compileNow compiled the template');
    assert.deepEqual(compiled(wire, start, wire.length, cx)?.values, rec?.values);
  });

  it('compile a template only after it has carried some records', async () => {
    const { COMPILE_AFTER_RECORDS, recordDecoder } = await import('./record-decoder.js');
    const store = new TemplateStore({ transport: 'tcp' });
    const records = (n: number) => set(256, '0a0000010050'.repeat(n));
    decodeMessage(message(1, TEMPLATE_256, records(COMPILE_AFTER_RECORDS - 1)), store);
    const t = store.get(1, 256) as Template;
    assert.notEqual(recordDecoder(t).decode.name, 'decodeTemplate256', 'still interpreted');
    const m = decodeMessage(message(1, records(2)), store);
    assert.deepEqual(m.records.map((r) => r.values), [['10.0.0.1', 80], ['10.0.0.1', 80]]);
    assert.equal(recordDecoder(t).decode.name, 'decodeTemplate256', 'compiled once it carried enough records');
  });

  it('a template of 16,000 fields decodes without compiling it', () => {
    const n = 16000;
    const fields = Array.from({ length: n }, () => '0004 0001').join('');
    const m = decodeMessage(message(1, set(2, `0100 ${n.toString(16).padStart(4, '0')} ${fields}`), set(256, '06'.repeat(3))), new TemplateStore({ transport: 'tcp' }));
    assert.deepEqual(m.errors, []);
    assert.equal(m.templates[0]?.fields.length, n);
  });
});

describe('TemplateStore', () => {
  it('keeps the template object (and its compiled decoder) when an identical template is refreshed', () => {
    const store = new TemplateStore({ transport: 'udp' });
    const first = decodeMessage(message(1, TEMPLATE_256), store).templates[0];
    const again = decodeMessage(message(1, TEMPLATE_256), store).templates[0];
    assert.equal(again, first);
    const redefined = decodeMessage(message(1, TEMPLATE_256_OTHER), store).templates[0];
    assert.notEqual(redefined, first);
    assert.equal(store.get(1, 256), redefined);
  });
});
