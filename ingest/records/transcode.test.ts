import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scanMessage } from '../../lib/ipfix/decode-message.js';
import { readMessageHeader } from '../../lib/ipfix/message-header.js';
import { recordLayout } from '../../lib/ipfix/record-layout.js';
import { TemplateStore } from '../../lib/ipfix/template-store.js';
import { readManifest, readVendorFile } from '../../lib/ipfix/testing/fixtures.js';
import { type InfoElement, type Template, VARIABLE_LENGTH } from '../../lib/ipfix/types.js';
import { FLOW_RECORD_FIELDS, flowRecordReader, flowRecordWriter, type RecordOrigin, type Transport } from '../../schemas/flow-record.js';
import { allElements, element, lookupElement } from '../../lib/ipfix/registry.js';
import { RecordBuffer } from '../../schemas/record-buffer.js';
import { antreaAgentTemplate, softflowdTemplate } from '../../lib/ipfix/testing/templates.js';
import { contextFor, encodeRecord, type MessageFacts, referenceEncode, templateOf } from './testing/records.js';
import { compileTranscoder, type Transcoder } from './transcode.js';
import { SamplingTable } from './sampling.js';

const writer = flowRecordWriter();
const reader = flowRecordReader();

/** JSON view for comparing avsc-decoded records (class instances) with built ones (plain objects). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

// ---- generators ----

interface FieldChoice {
  readonly ie: InfoElement;
  readonly length: number;
}

const typed = FLOW_RECORD_FIELDS.flatMap((f) => (f.kind === 'element' ? [f.ie] : []));
const firstOfType = (type: string) => [...allElements()].filter((ie) => ie.type === type && !typed.includes(ie)).slice(0, 1);
const TIME_IDS = [150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 21, 22, 160];
/** Elements a random template draws from: every typed one, every time one, and untyped, unknown and odd ones. */
const POOL: InfoElement[] = [
  ...typed,
  ...TIME_IDS.map((id) => lookupElement(0, id)),
  ...['unsigned64', 'unsigned32', 'signed32', 'signed64', 'float64', 'float32', 'boolean', 'macAddress', 'dateTimeMicroseconds', 'string', 'octetArray'].flatMap(firstOfType),
  lookupElement(29305, 4),
  lookupElement(12345, 7),
  lookupElement(56506, 999),
  // samplerId (looked up in the announced sampling), paddingOctets (left out).
  lookupElement(0, 48),
  lookupElement(0, 210),
];

function lengthsOf(ie: InfoElement): number[] {
  switch (ie.type) {
    case 'unsigned16': case 'signed16': return [1, 2];
    case 'unsigned32': case 'signed32': return [1, 2, 3, 4];
    case 'unsigned64': case 'signed64': return [1, 2, 4, 6, 7, 8];
    case 'float64': return [4, 8];
    case 'string': return [VARIABLE_LENGTH, VARIABLE_LENGTH, 1, 12];
    case 'octetArray': return ie.length === VARIABLE_LENGTH ? [VARIABLE_LENGTH, 3] : [ie.length, VARIABLE_LENGTH];
    default: return [ie.length];
  }
}

const fieldChoice: fc.Arbitrary<FieldChoice> = fc
  .constantFrom(...POOL)
  .chain((ie) => fc.constantFrom(...lengthsOf(ie)).map((length) => ({ ie, length })));

const bytesOf = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });

/** Raw field bytes: adversarial where the codec accepts anything, valid where it checks (booleans). */
function valueBytes(f: FieldChoice): fc.Arbitrary<Uint8Array> {
  const { ie, length } = f;
  if (ie.type === 'boolean') return fc.constantFrom(Uint8Array.of(1), Uint8Array.of(2));
  if (ie.type === 'string') {
    const text = fc.oneof(
      fc.constantFrom('', 'default', 'kube-system', 'coredns-7c65d6cfc9-x2b4m', 'ESTABLISHED', 'ns/svc:http'),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ maxLength: 300 }),
    ).map((s) => new Uint8Array(Buffer.from(s, 'utf8')));
    const raw = fc.oneof(text, fc.uint8Array({ maxLength: 40 }), text.map((b) => Uint8Array.from([...b, 0, 0])));
    if (length === VARIABLE_LENGTH) return raw;
    return raw.map((b) => {
      const out = new Uint8Array(length); // fixed-length strings: truncated, or NUL-padded
      out.set(b.subarray(0, length));
      return out;
    });
  }
  if (length === VARIABLE_LENGTH) return fc.uint8Array({ maxLength: 300 });
  if (ie.pen === 56506 && ie.id === 137) return fc.integer({ min: 0, max: 5 }).map((v) => Uint8Array.of(v)); // flowType
  if (ie.type.startsWith('unsigned') || ie.type.startsWith('signed') || ie.type.startsWith('dateTime')) {
    // Small values mostly, and any bit pattern (64-bit values beyond 2^53, negative numbers) sometimes.
    return fc.oneof(
      bytesOf(Math.min(length, 2)).map((b) => Uint8Array.from([...new Uint8Array(length - b.length), ...b])),
      bytesOf(length),
    );
  }
  if (ie.type === 'ipv4Address' || ie.type === 'ipv6Address') return fc.oneof(bytesOf(length), fc.constant(new Uint8Array(length)));
  return bytesOf(length);
}

const record = fc
  .array(fieldChoice, { minLength: 1, maxLength: 40 })
  .chain((fields) => fc.tuple(fc.constant(fields), fc.tuple(...fields.map(valueBytes))));

const origin: fc.Arbitrary<RecordOrigin> = fc.record({
  exporterAddress: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constant('')),
  exporterPort: fc.integer({ min: 0, max: 65535 }),
  transport: fc.constantFrom<Transport>('udp', 'tcp', 'tls', 'file', 'netflow_v9', 'netflow_v5'),
});

/** Sampling announced for the domain and per sampler id (sampler ids drawn from 0..3 so that records hit them). */
const sampling: fc.Arbitrary<SamplingTable | undefined> = fc.option(
  fc.tuple(fc.integer({ min: -1, max: 4096 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 2 ** 32 - 1 })), { maxLength: 3 }))
    .map(([domain, samplers]) => {
      const t = new SamplingTable();
      t.announce(-1, domain);
      for (const [id, interval] of samplers) t.announce(id, interval);
      return t;
    }),
  { nil: undefined },
);

const message: fc.Arbitrary<MessageFacts> = fc.record({
  exportTime: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  sequenceNumber: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  receiveTime: fc.integer({ min: 0, max: 2 ** 43 }),
  systemInitTime: fc.option(fc.integer({ min: 0, max: 2 ** 42 }), { nil: undefined }),
  // NetFlow's packet sysUpTime, for wrapped SysUpTime times.
  upTime: fc.option(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { nil: undefined }),
  sampling,
});

function templateFrom(fields: readonly FieldChoice[], id = 300): Template {
  return { id, observationDomainId: 7, fields: fields.map((f) => ({ ie: f.ie, length: f.length, scope: false })), scopeFieldCount: 0 };
}

/**
 * Transcodes the record, checking it against the reference; returns the decoded transcoder output. The output
 * buffer's chunks are 1 byte, so each record gets a buffer of exactly the size the transcoder reserved: a bound
 * too small would lose bytes (typed arrays ignore writes past their end) and fail the comparison.
 */
function checkSame(template: Template, bytes: Uint8Array, o: RecordOrigin, facts: MessageFacts, out = new RecordBuffer(1)): Record<string, unknown> {
  const m = contextFor(o, template, facts);
  const expected = referenceEncode(template, bytes, m, writer);
  const t = compileTranscoder(template);
  // Placed inside a larger buffer, to check offsets are honoured.
  const buf = Buffer.concat([Buffer.from([9, 9, 9]), bytes, Buffer.from([9])]);
  assert.equal(t.transcode(buf, 3, 3 + bytes.length, m, out), 3 + bytes.length);
  assert.deepEqual(out.key(), expected.key, 'flow key');
  assert.deepEqual(out.value(), expected.value, 'Avro value');
  const decoded = reader.decode(out.value());
  assert.deepEqual(plain(decoded), plain(expected.record));
  return decoded as Record<string, unknown>;
}

// ---- properties ----

test('transcoder output equals the reference builder, byte for byte, for random templates and values', () => {
  fc.assert(
    fc.property(record, origin, message, ([fields, values], o, m) => {
      const template = templateFrom(fields);
      checkSame(template, encodeRecord(template, values), o, m);
    }),
    { numRuns: 300 },
  );
});

test('the Antrea agent and softflowd templates transcode like the reference for random values', () => {
  for (const template of [antreaAgentTemplate(), softflowdTemplate()]) {
    const fields = template.fields.map((f) => ({ ie: f.ie, length: f.length }));
    fc.assert(fc.property(fc.tuple(...fields.map(valueBytes)), origin, message, (values, o, m) => {
      checkSame(template, encodeRecord(template, values), o, m);
    }), { numRuns: 100 });
  }
});

// ---- examples with hand-checked values ----

const ORIGIN: RecordOrigin = { exporterAddress: '192.168.1.10', exporterPort: 40000, transport: 'tls' };
const MSG: MessageFacts = { exportTime: 1_700_000_100, sequenceNumber: 42, receiveTime: 1_700_000_100_250, systemInitTime: 1_699_000_000_000 };

test('an Antrea agent record: provenance, typed fields, times in ms, no extras', () => {
  const template = antreaAgentTemplate(256, 0xabcdef);
  const byName: Record<string, unknown> = {
    flowStartSeconds: 1_700_000_000, flowEndSeconds: 1_700_000_060, flowEndReason: 3, sourceTransportPort: 35000, destinationTransportPort: 80,
    protocolIdentifier: 6, packetTotalCount: 2 ** 40, octetTotalCount: 12345, packetDeltaCount: 10, octetDeltaCount: 1000,
    sourceIPv4Address: '10.10.0.5', destinationIPv4Address: '10.10.1.7', sourcePodName: 'client', sourcePodNamespace: 'default',
    destinationPodName: 'nginx-1', destinationServicePortName: 'default/nginx:http', ingressNetworkPolicyRuleAction: 1,
    tcpState: 'TIME_WAIT', flowType: 2, egressIP: '', destinationServiceIPv4: '10.96.0.10', proxySnatIPv4: '0.0.0.0',
  };
  const values = template.fields.map((f) => byName[f.ie.name] ?? (f.ie.type === 'string' ? '' : f.ie.type === 'ipv4Address' ? '0.0.0.0' : 0));
  const r = checkSame(template, encodeRecord(template, values as never), ORIGIN, MSG);
  assert.equal(r.exporterAddress, '192.168.1.10');
  assert.equal(r.transport, 'tls');
  assert.equal(r.observationDomainId, 0xabcdef);
  assert.equal(r.templateId, 256);
  assert.equal(r.exportTime, 1_700_000_100_000);
  assert.equal(r.sequenceNumber, 42);
  assert.equal(r.flowStartMilliseconds, 1_700_000_000_000);
  assert.equal(r.flowEndMilliseconds, 1_700_000_060_000);
  assert.equal(r.flowStartSource, 'seconds');
  assert.equal(r.packetTotalCount, 2 ** 40);
  assert.deepEqual([...(r.sourceIPv4Address as Buffer)], [10, 10, 0, 5]);
  assert.equal(r.sourcePodName, 'client');
  assert.equal(r.destinationServicePortName, 'default/nginx:http');
  assert.equal(r.egressIP, '');
  assert.equal(r.sourceIPv6Address, null);
  assert.equal(r.flowDirection, null);
  assert.deepEqual(r.extras, []);
});

test('softflowd: SysUpTime times use the system init time, reduced-size counters are read whole', () => {
  const template = softflowdTemplate();
  const byName: Record<string, number | string> = {
    sourceIPv4Address: '1.2.3.4', destinationIPv4Address: '5.6.7.8', octetDeltaCount: 4_000_000_000, packetDeltaCount: 3,
    flowStartSysUpTime: 1_000, flowEndSysUpTime: 61_500, tcpControlBits: 0x1b, protocolIdentifier: 6,
  };
  const bytes = encodeRecord(template, template.fields.map((f) => byName[f.ie.name] ?? 0) as never);
  const r = checkSame(template, bytes, ORIGIN, MSG);
  assert.equal(r.octetDeltaCount, 4_000_000_000);
  assert.equal(r.tcpControlBits, 0x1b);
  assert.equal(r.flowStartMilliseconds, 1_699_000_001_000);
  assert.equal(r.flowEndMilliseconds, 1_699_000_061_500);
  assert.equal(r.flowEndSource, 'sysUpTime');
  // Without a system init time the times are unknown; their raw elements are kept instead.
  const unknown = checkSame(template, bytes, ORIGIN, { ...MSG, systemInitTime: undefined });
  assert.equal(unknown.flowStartMilliseconds, null);
  assert.equal(unknown.flowStartSource, null);
  assert.deepEqual(plain(unknown.extras), plain([
    { pen: 0, id: 22, value: Buffer.from([0, 0, 0x03, 0xe8]) },
    { pen: 0, id: 21, value: Buffer.from([0, 0, 0xf0, 0x3c]) },
  ]));
});

test('extras: unknown, untyped and repeated elements and unrepresentable values keep their bytes in template order', () => {
  const template: Template = {
    id: 500, observationDomainId: 1, scopeFieldCount: 0,
    fields: [
      { ie: lookupElement(12345, 7), length: VARIABLE_LENGTH, scope: false },
      { ie: element('octetDeltaCount'), length: 8, scope: false },
      { ie: element('octetDeltaCount'), length: 8, scope: false },
      { ie: element('packetDeltaCount'), length: 8, scope: false },
      { ie: element('flowStartMilliseconds'), length: 8, scope: false },
      { ie: element('flowStartSeconds'), length: 4, scope: false },
    ],
  };
  const big = Buffer.from([0x00, 0x20, 0, 0, 0, 0, 0, 0]); // 2^53: no longer a safe JS number
  const bytes = encodeRecord(template, [Uint8Array.of(1, 2, 3), 5, 6, big, 1_700_000_000_123, 1_700_000_000]);
  const r = checkSame(template, bytes, ORIGIN, MSG);
  assert.equal(r.octetDeltaCount, 5);
  assert.equal(r.packetDeltaCount, null);
  assert.equal(r.flowStartMilliseconds, 1_700_000_000_123);
  assert.equal(r.flowStartSource, 'milliseconds');
  assert.deepEqual(plain(r.extras), plain([
    { pen: 12345, id: 7, value: Buffer.from([1, 2, 3]) },
    { pen: 0, id: 1, value: Buffer.from([0, 0, 0, 0, 0, 0, 0, 6]) },
    { pen: 0, id: 2, value: big },
    { pen: 0, id: 150, value: Buffer.from([0x65, 0x53, 0xf1, 0x00]) },
  ]));
});

test('NTP microsecond and nanosecond times are floored to milliseconds as the codec rounds them', () => {
  const template = templateOf(600, ['flowStartMicroseconds', 'flowEndNanoseconds']);
  const sec = 1_700_000_000 + 2_208_988_800;
  // 0.9999999 s in NTP fraction units: the µs reading rounds up to the next second, the ns one does not.
  const frac = Math.floor(0.9999999 * 2 ** 32);
  const ntp = Buffer.alloc(8);
  ntp.writeUInt32BE(sec, 0);
  ntp.writeUInt32BE(frac, 4);
  const r = checkSame(template, encodeRecord(template, [ntp, ntp]), ORIGIN, MSG);
  assert.equal(r.flowStartMilliseconds, 1_700_000_001_000);
  assert.equal(r.flowEndMilliseconds, 1_700_000_000_999);
  assert.equal(r.flowEndSource, 'nanoseconds');
});

test('strings: trailing NULs dropped, invalid UTF-8 replaced as the codec decodes it', () => {
  const template = templateOf(700, ['sourcePodName', ['destinationPodName', 8], 'tcpState']);
  const r = checkSame(template, encodeRecord(template, [Buffer.from('web\0\0'), Buffer.from('db\0\0\0\0\0\0'), Uint8Array.of(0x41, 0xff, 0x42)]), ORIGIN, MSG);
  assert.equal(r.sourcePodName, 'web');
  assert.equal(r.destinationPodName, 'db');
  assert.equal(r.tcpState, 'A\ufffdB');
});

test('records cut off before the end are reported, and nothing is written', () => {
  const template = templateOf(800, ['sourcePodName', 'sourceTransportPort']);
  const bytes = encodeRecord(template, ['abcdef', 80]);
  const out = new RecordBuffer(1024);
  const t = compileTranscoder(template);
  const m = contextFor(ORIGIN, template, MSG);
  assert.equal(t.transcode(bytes, 0, bytes.length - 1, m, out), -1);
  assert.equal(out.pos, 0);
  assert.equal(t.transcode(bytes, 0, bytes.length, m, out), bytes.length);
  assert.ok(out.pos > 0);
});

test('the output buffer starts a new chunk when full, leaving earlier records intact', () => {
  const template = antreaAgentTemplate();
  const values = template.fields.map((f) => (f.ie.type === 'string' ? 'x'.repeat(50) : f.ie.type === 'ipv4Address' ? '10.0.0.1' : 1));
  const bytes = encodeRecord(template, values as never);
  const out = new RecordBuffer(2048);
  const t = compileTranscoder(template);
  const kept: Buffer[] = [];
  for (let i = 0; i < 10; i++) {
    t.transcode(bytes, 0, bytes.length, contextFor(ORIGIN, template, { ...MSG, sequenceNumber: i }), out);
    kept.push(out.value());
  }
  kept.forEach((v, i) => assert.equal(reader.decode(v).sequenceNumber, i));
});

test('templates too large to compile go through the reference builder, with the same result', () => {
  const unknown = (i: number) => ({ ie: lookupElement(4242, i), length: 2, scope: false });
  const template: Template = {
    id: 900, observationDomainId: 1, scopeFieldCount: 0,
    fields: [{ ie: element('sourcePodName'), length: VARIABLE_LENGTH, scope: false }, ...Array.from({ length: 299 }, (_, i) => unknown(i + 1))],
  };
  const bytes = encodeRecord(template, ['big', ...Array.from({ length: 299 }, (_, i) => Uint8Array.of(i >> 8, i & 255))]);
  const r = checkSame(template, bytes, ORIGIN, MSG);
  assert.equal(r.sourcePodName, 'big');
  assert.equal((r.extras as unknown[]).length, 299);
  // A value the codec refuses (a boolean of 7) in an untyped field is kept as bytes, not an error.
  const withBoolean: Template = { ...template, fields: [...template.fields, { ie: firstOfType('boolean')[0]!, length: 1, scope: false }] };
  const out = new RecordBuffer(1 << 16);
  const withBad = Buffer.concat([bytes, Uint8Array.of(7)]);
  assert.equal(compileTranscoder(withBoolean).transcode(withBad, 0, withBad.length, contextFor(ORIGIN, withBoolean, MSG), out), withBad.length);
  assert.deepEqual(plain((reader.decode(out.value()).extras as unknown[]).at(-1)), plain({ pen: 0, id: firstOfType('boolean')[0]!.id, value: Buffer.from([7]) }));
});

test('every data record of the vendor captures (shared fixtures) transcodes like the reference', () => {
  let records = 0;
  let withExtras = 0;
  for (const sequence of readManifest()) {
    const store = new TemplateStore({ transport: 'file' });
    const transcoders = new Map<Template, Transcoder>();
    const transcoderOf = (t: Template) => transcoders.get(t) ?? transcoders.set(t, compileTranscoder(t)).get(t)!;
    const out = new RecordBuffer(1 << 16);
    for (const file of sequence.files) {
      const msg = readVendorFile(file);
      const header = readMessageHeader(msg);
      const facts: MessageFacts = { exportTime: header.exportTime, sequenceNumber: header.sequenceNumber, receiveTime: 1_700_000_000_000, systemInitTime: undefined };
      scanMessage(msg, store, (template, buf, start, end) => {
        const context = contextFor(ORIGIN, template, facts);
        const { minLength } = recordLayout(template);
        for (let q = start; end - q >= minLength; ) {
          const next = transcoderOf(template).transcode(buf, q, end, context, out);
          if (next < 0) break;
          const expected = referenceEncode(template, buf.subarray(q, next), context, writer);
          assert.deepEqual(out.value(), expected.value, `${sequence.name}: template ${template.id}, record at ${q}`);
          assert.deepEqual(out.key(), expected.key);
          records++;
          if (expected.record.extras.length > 0) withExtras++;
          q = next;
        }
      });
    }
  }
  // The fixtures' own count of data records (MANIFEST.tsv), so that no record was skipped.
  assert.equal(records, readManifest().reduce((n, s) => n + s.dataRecords, 0));
  assert.ok(withExtras > 0);
});
