// The encoder against the decoder: fast-check round trips over random templates (random element mixes
// with variable-length, reduced-size and enterprise fields) and values, message splitting under
// maxMessageSize, sequence numbers, and the values the encoder refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { allElements, lookupElement } from './registry.js';
import { decodeMessage } from './decode-message.js';
import { IPFIX_ERR } from './errors.js';
import { MessageEncoder } from './message-encoder.js';
import { TemplateStore } from './template-store.js';
import { antreaAgentTemplate, antreaAgentValues, makeTemplate } from './testing/templates.js';
import { formatIpv6, formatMac } from './text.js';
import { type AbstractType, type FieldValue, type InfoElement, type Template, type TemplateField, VARIABLE_LENGTH } from './types.js';

const SCALAR_TYPES: AbstractType[] = [
  'octetArray', 'unsigned8', 'unsigned16', 'unsigned32', 'unsigned64', 'signed8', 'signed16', 'signed32', 'signed64',
  'float32', 'float64', 'boolean', 'macAddress', 'string', 'dateTimeSeconds', 'dateTimeMilliseconds',
  'dateTimeMicroseconds', 'dateTimeNanoseconds', 'ipv4Address', 'ipv6Address',
];
const byType = new Map<AbstractType, InfoElement[]>();
for (const ie of allElements()) if (SCALAR_TYPES.includes(ie.type)) byType.set(ie.type, [...(byType.get(ie.type) ?? []), ie]);

const NATURAL: Partial<Record<AbstractType, number>> = {
  unsigned8: 1, unsigned16: 2, unsigned32: 4, unsigned64: 8, signed8: 1, signed16: 2, signed32: 4, signed64: 8,
};

/** Lengths a field of this type may have: natural, variable, and reduced sizes where allowed. */
function lengthsFor(ie: InfoElement): fc.Arbitrary<number> {
  const n = NATURAL[ie.type];
  if (n !== undefined) return fc.oneof(fc.constant(n), fc.constant(VARIABLE_LENGTH), fc.integer({ min: 1, max: n }));
  if (ie.type === 'float64') return fc.constantFrom(8, 4, VARIABLE_LENGTH);
  if (ie.type === 'string' || ie.type === 'octetArray') return fc.oneof(fc.constant(VARIABLE_LENGTH), fc.integer({ min: 0, max: 24 }));
  return fc.constantFrom(ie.length === VARIABLE_LENGTH ? 8 : ie.length, VARIABLE_LENGTH);
}

const fieldArb: fc.Arbitrary<TemplateField> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SCALAR_TYPES.filter((t) => byType.has(t))).chain((t) => fc.constantFrom(...(byType.get(t) ?? []))) },
  // enterprise elements nobody registered: kept as octetArray
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 32767 })).map(([pen, id]) => lookupElement(pen === 29305 || pen === 56506 ? 1 : pen, id)) },
).chain((ie) => lengthsFor(ie).map((length) => ({ ie, length, scope: false })));

const normal = (v: bigint): number | bigint => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
const roundTrips = (s: string) => !s.endsWith('\0') && new TextDecoder().decode(new TextEncoder().encode(s)) === s;

function valueArb(f: TemplateField): fc.Arbitrary<FieldValue> {
  const varlen = f.length === VARIABLE_LENGTH;
  const bytes = (t: AbstractType) => (varlen ? (NATURAL[t] ?? 8) : f.length);
  switch (f.ie.type) {
    case 'unsigned8': case 'unsigned16': case 'unsigned32': case 'unsigned64':
      return fc.bigInt(0n, (1n << BigInt(8 * bytes(f.ie.type))) - 1n).map(normal);
    case 'signed8': case 'signed16': case 'signed32': case 'signed64': {
      const bits = BigInt(8 * bytes(f.ie.type));
      return fc.bigInt(-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n).map(normal);
    }
    case 'float32': return fc.float();
    case 'float64': return f.length === 4 ? fc.float() : fc.double();
    case 'boolean': return fc.boolean();
    case 'macAddress': return fc.uint8Array({ minLength: 6, maxLength: 6 }).map((b) => formatMac(b, 0));
    case 'ipv4Address': return fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
    case 'ipv6Address': return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => formatIpv6(b, 0));
    case 'string':
      return varlen
        ? fc.string({ unit: 'binary', maxLength: 40 }).filter(roundTrips)
        : fc.string({ unit: fc.integer({ min: 1, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: f.length });
    case 'octetArray': return varlen ? fc.uint8Array({ maxLength: 300 }) : fc.uint8Array({ minLength: f.length, maxLength: f.length });
    case 'dateTimeSeconds': return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'dateTimeMilliseconds': return fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    case 'dateTimeMicroseconds':
      return fc.bigInt(-2_208_988_800_000_000n, 2_085_978_495_999_999n).map((us) => us * 1000n);
    case 'dateTimeNanoseconds': return fc.bigInt(-2_208_988_800_000_000_000n, 2_085_978_495_999_999_999n);
    default: throw new Error(`no arbitrary for ${f.ie.type}`);
  }
}

const templateArb = (id: number): fc.Arbitrary<Template> =>
  fc.array(fieldArb, { minLength: 1, maxLength: 12 })
    .filter((fields) => fields.some((f) => f.length !== 0))
    .map((fields) => makeTemplate(id, fields, 42));

const caseArb = fc
  .tuple(templateArb(256), templateArb(257))
  .chain(([a, b]) =>
    fc.record({
      templates: fc.constant([a, b]),
      records: fc.array(fc.oneof(
        fc.tuple(...a.fields.map(valueArb)).map((values) => ({ template: a, values })),
        fc.tuple(...b.fields.map(valueArb)).map((values) => ({ template: b, values })),
      ), { minLength: 1, maxLength: 30 }),
      maxMessageSize: fc.integer({ min: 1200, max: 65535 }),
    }));

describe('MessageEncoder', () => {
  it('round-trips random templates and values through the decoder (property)', () => {
    fc.assert(
      fc.property(caseArb, ({ templates, records, maxMessageSize }) => {
        const enc = new MessageEncoder({ observationDomainId: 42, maxMessageSize, exportTime: () => 7 });
        for (const t of templates) enc.addTemplate(t);
        for (const r of records) enc.addRecord(r.template, r.values);
        const store = new TemplateStore({ transport: 'tcp' });
        const decoded = enc.flush().map((m) => {
          assert.ok(m.length <= maxMessageSize);
          return decodeMessage(m, store);
        });
        assert.deepEqual(decoded.flatMap((d) => d.errors), []);
        const got = decoded.flatMap((d) => d.records);
        assert.equal(got.length, records.length);
        got.forEach((rec, i) => {
          assert.equal(rec.template.id, records[i]?.template.id);
          assert.deepEqual(rec.values, records[i]?.values);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('splits records over messages of at most maxMessageSize, with RFC 7011 sequence numbers', () => {
    const template = antreaAgentTemplate();
    const enc = new MessageEncoder({ observationDomainId: template.observationDomainId, maxMessageSize: 1400, initialSequenceNumber: 10 });
    enc.addTemplate(template);
    for (let i = 0; i < 500; i++) enc.addRecord(template, antreaAgentValues(i));
    const messages = enc.flush();
    assert.ok(messages.length > 50);
    const store = new TemplateStore({ transport: 'udp' });
    let expectedSequence = 10;
    let n = 0;
    for (const m of messages) {
      assert.ok(m.length <= 1400);
      const d = decodeMessage(m, store);
      assert.equal(d.header.sequenceNumber, expectedSequence, 'sequence number = data records sent before this message');
      expectedSequence += d.records.length;
      for (const r of d.records) assert.deepEqual(r.values, antreaAgentValues(n++));
    }
    assert.equal(n, 500);
    assert.equal(enc.sequenceNumber, 510);
    // The next flush continues the count; sequence numbers wrap at 2^32.
    const wrap = new MessageEncoder({ observationDomainId: 1, initialSequenceNumber: 2 ** 32 - 1 });
    wrap.addTemplate(template);
    wrap.addRecord(template, antreaAgentValues(0));
    wrap.addRecord(template, antreaAgentValues(1));
    wrap.flush();
    assert.equal(wrap.sequenceNumber, 1);
  });

  it('writes template withdrawals, honoured by a TCP session', () => {
    const template = makeTemplate(300, [{ ie: lookupElement(0, 8), length: 4, scope: false }], 5);
    const store = new TemplateStore({ transport: 'tcp' });
    const enc = new MessageEncoder({ observationDomainId: 5 });
    enc.addTemplate(template);
    for (const m of enc.flush()) decodeMessage(m, store);
    assert.ok(store.get(5, 300));
    enc.withdrawTemplate(300);
    const [m] = enc.flush();
    assert.deepEqual(decodeMessage(m as Uint8Array, store).withdrawals, [{ observationDomainId: 5, templateId: 300 }]);
    assert.equal(store.get(5, 300), undefined);
  });

  it('refuses values that do not fit their field, and records larger than a message', () => {
    const t = makeTemplate(300, [{ ie: lookupElement(0, 7), length: 2, scope: false }, { ie: lookupElement(0, 82), length: VARIABLE_LENGTH, scope: false }], 1);
    const enc = new MessageEncoder({ observationDomainId: 1, maxMessageSize: 512 });
    assert.throws(() => enc.addRecord(t, [65536, 'x']), { code: IPFIX_ERR.BAD_VALUE });
    assert.throws(() => enc.addRecord(t, ['80', 'x']), { code: IPFIX_ERR.BAD_VALUE });
    assert.throws(() => enc.addRecord(t, [80]), { code: IPFIX_ERR.BAD_VALUE });
    assert.throws(() => enc.addRecord(t, [80, 'x'.repeat(600)]), { code: IPFIX_ERR.RECORD_TOO_LARGE });
    enc.addRecord(t, [80, 'ok']);
    const [m] = enc.flush();
    assert.deepEqual(decodeMessage(m as Uint8Array, (() => { const s = new TemplateStore({ transport: 'tcp' }); s.set(t); return s; })()).records[0]?.values, [80, 'ok']);
  });

  it('takes addresses as their bytes in network order as well as text', () => {
    const fields = [8, 27, 56].map((id) => ({ ie: lookupElement(0, id), length: lookupElement(0, id).length, scope: false }));
    const t = makeTemplate(301, fields, 1);
    const enc = new MessageEncoder({ observationDomainId: 1 });
    const v6 = Uint8Array.from([0x20, 0x01, 0x0d, 0xb8, ...new Array<number>(11).fill(0), 1]);
    enc.addRecord(t, [Uint8Array.from([10, 1, 2, 3]), v6, Uint8Array.from([0, 0x0c, 0x29, 0x70, 0x86, 9])]);
    assert.throws(() => enc.addRecord(t, [Uint8Array.from([10, 1, 2]), v6, '00:0c:29:70:86:09']), { code: IPFIX_ERR.BAD_VALUE });
    const store = new TemplateStore({ transport: 'tcp' });
    store.set(t);
    const [m] = enc.flush();
    assert.deepEqual(decodeMessage(m as Uint8Array, store).records[0]?.values, ['10.1.2.3', '2001:db8::1', '00:0c:29:70:86:09']);
  });
});
