// The fast JSON-lines writer against the reference (decode-format.ts jsonLine: an object per record,
// JSON.stringify): byte-identical lines for every record of every vendor fixture, and for values at the
// edges (bigints, non-finite floats, non-ASCII and escaped text, lists, repeated elements, a buffer full).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeMessage } from '../../../lib/ipfix/decode-message.js';
import { TemplateStore } from '../../../lib/ipfix/template-store.js';
import { readManifest, readVendorFile } from '../../../lib/ipfix/testing/fixtures.js';
import { makeTemplate, templateField } from '../../../lib/ipfix/testing/templates.js';
import type { DataRecord, FieldValue, MessageHeader } from '../../../lib/ipfix/types.js';
import { type RecordMeta, jsonLine, jsonLinePrefix } from './decode-format.js';
import { JsonLinesWriter } from './json-lines.js';

function written(records: readonly { r: DataRecord; meta: RecordMeta }[]): { text: string; chunks: number } {
  const parts: Buffer[] = [];
  const w = new JsonLinesWriter((bytes) => void parts.push(Buffer.from(bytes)));
  for (const { r, meta } of records) w.record(r, meta);
  w.flush();
  return { text: Buffer.concat(parts).toString('utf8'), chunks: parts.length };
}

const reference = (records: readonly { r: DataRecord; meta: RecordMeta }[]) => records.map(({ r, meta }) => `${jsonLine(r, jsonLinePrefix(r.template.id, meta))}\n`).join('');

test('every record of every vendor fixture is written exactly as the reference writes it', () => {
  const records: { r: DataRecord; meta: RecordMeta }[] = [];
  for (const sequence of readManifest()) {
    const store = new TemplateStore({ transport: 'file' });
    for (const [i, file] of sequence.files.entries()) {
      const d = decodeMessage(readVendorFile(file), store);
      const meta = { header: d.header, offset: i * 100, ...(i % 2 === 0 && { exporter: `192.0.2.${i % 250}:4739` }) };
      for (const r of d.records) records.push({ r, meta });
    }
  }
  assert.equal(records.length, readManifest().reduce((n, s) => n + s.dataRecords, 0));
  assert.equal(written(records).text, reference(records));
});

const header: MessageHeader = { version: 10, length: 0, exportTime: 1_700_000_000, sequenceNumber: 7, observationDomainId: 3 };

test('values at the edges, and a record that fills the buffer, are written as the reference writes them', () => {
  const t = makeTemplate(300, [
    templateField('octetDeltaCount'), templateField('packetDeltaCount', 4), templateField('flowStartNanoseconds'), templateField('absoluteError'),
    templateField('sourceIPv6Address'), templateField('sourceMacAddress'), templateField('interfaceName'), templateField('dataLinkFrameSection'),
    templateField('isMulticast'), templateField('destinationTransportPort'),
  ]);
  const huge = 'ü'.repeat(400_000);
  const rows: FieldValue[][] = [
    [2n ** 60n, 4294967295, 1_700_000_000_123_456_789n, Number.NaN, '2001:db8::1', '00:11:22:33:44:55', 'eth0 "quoted" \\ tab\t ünï ✓', new Uint8Array([0, 255, 16]), true, 0],
    [Number.MAX_SAFE_INTEGER, 0, 0n, -1.5, '::', '00:00:00:00:00:00', '', new Uint8Array([]), false, 65535],
    [2 ** 53 - 1, 10, 1n, Infinity, 'fe80::1', 'ff:ff:ff:ff:ff:ff', huge, new Uint8Array(40_000), true, 443],
  ];
  const records = rows.map((values) => ({ r: { template: t, values } as DataRecord, meta: { header } }));
  const out = written(records);
  assert.equal(out.text, reference(records));
  assert.ok(out.chunks >= 2, 'a record larger than what is left of the buffer goes out in more than one write');
});

test('a template that repeats an element writes arrays, as the reference does', () => {
  const t = makeTemplate(301, [templateField('sourceIPv4Address'), templateField('mplsLabelStackSection'), templateField('mplsLabelStackSection')]);
  const records = [{ r: { template: t, values: ['10.0.0.1', new Uint8Array([1]), new Uint8Array([2])] } as DataRecord, meta: { header, exporter: '[2001:db8::2]:9995' } }];
  const out = written(records).text;
  assert.equal(out, reference(records));
  assert.deepEqual(JSON.parse(out).mplsLabelStackSection, ['01', '02']);
});
