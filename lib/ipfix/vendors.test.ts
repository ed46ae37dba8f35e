// Every vendor capture in ../shared/fixtures/ipfix/vendors decoded and compared with ipfixDump's
// output: record and template counts for all 13 sequences, and every field value of every data
// record (see testing/ipfixdump.ts for how ipfixDump prints values and which quirks that implies).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage } from './decode-message.js';
import { TemplateStore } from './template-store.js';
import { type DumpField, type DumpRecord, ipfixDumpValue, parseIpfixDump } from './testing/ipfixdump.js';
import { rawFields, readExpectedDump, readManifest, readVendorFile } from './testing/fixtures.js';
import type { DataRecord, FieldValue, TemplateField } from './types.js';

const ALIEN = '_alienInformationElement';

function rawOf(value: FieldValue): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return new TextEncoder().encode(value);
  return new Uint8Array(0);
}

function compareRecord(ours: DataRecord, expected: DumpRecord, raw: readonly Uint8Array[] | undefined, where: string): void {
  assert.equal(ours.template.id, expected.templateId, `${where}: template id`);
  assert.equal(ours.values.length, expected.fields.length, `${where}: field count`);
  expected.fields.forEach((exp: DumpField, i) => {
    const field = ours.template.fields[i] as TemplateField;
    const value = ours.values[i] as FieldValue;
    const at = `${where}, field ${i} (${exp.name})`;
    assert.deepEqual([field.ie.pen, field.ie.id, field.scope], [exp.pen, exp.id, exp.scope], `${at}: element and scope`);
    const alien = exp.name === ALIEN;
    if (!alien) assert.equal(field.ie.name, exp.name, `${at}: name`);
    assert.equal(ipfixDumpValue(field, value, raw?.[i] ?? rawOf(value), alien), exp.value, `${at}: value`);
    if (exp.list !== undefined) compareList(value, exp.list, at);
  });
}

function compareList(value: FieldValue, exp: NonNullable<DumpField['list']>, where: string): void {
  assert.ok(typeof value === 'object' && 'kind' in value, `${where}: a list value`);
  assert.equal(value.kind, exp.kind, `${where}: list kind`);
  assert.equal(value.semantic, exp.semantic, `${where}: list semantic`);
  if (value.kind === 'subTemplateMultiList' && exp.kind === 'subTemplateMultiList') {
    assert.equal(value.entries.length, exp.entries.length, `${where}: entries`);
    exp.entries.forEach((e, k) => {
      const entry = value.entries[k];
      assert.equal(entry?.templateId, e.templateId, `${where}: entry ${k} template`);
      assert.equal(entry?.records.length, e.records.length, `${where}: entry ${k} records`);
      e.records.forEach((r, j) => compareRecord(entry?.records[j] as DataRecord, r, undefined, `${where} entry ${k} record ${j}`));
    });
  } else if (value.kind === 'subTemplateList' && exp.kind === 'subTemplateList') {
    assert.equal(value.templateId, exp.templateId, `${where}: template`);
    assert.equal(value.records.length, exp.records.length, `${where}: records`);
    exp.records.forEach((r, j) => compareRecord(value.records[j] as DataRecord, r, undefined, `${where} record ${j}`));
  } else if (value.kind === 'basicList' && exp.kind === 'basicList') {
    assert.equal(value.ie.id, exp.id, `${where}: element`);
    assert.deepEqual(value.values.map(String), exp.values, `${where}: values`);
  }
}

describe('vendor captures against ipfixDump', () => {
  // Both decoders: the interpreter that handles a template's first records, and the compiled one.
  for (const [mode, compileNow] of [['interpreted', false], ['compiled', true]] as const)
  for (const seq of readManifest()) {
    it(`${seq.name} (${mode}): ${seq.dataRecords} data records, ${seq.templateRecords} templates, every value as ipfixDump prints it`, () => {
      const store = new TemplateStore({ transport: 'file' });
      const records: DataRecord[] = [];
      const raws: Uint8Array[][] = [];
      let templates = 0;
      for (const file of seq.files) {
        const msg = readVendorFile(file);
        const decoded = decodeMessage(msg, store, { compileNow });
        records.push(...decoded.records);
        raws.push(...rawFields(msg, store));
        templates += decoded.templates.length;
      }
      assert.equal(records.length, seq.dataRecords, 'data records (options data records included)');
      assert.equal(templates, seq.templateRecords, 'template records');

      const dump = parseIpfixDump(readExpectedDump(seq.name));
      assert.deepEqual(dump.stats, { messages: seq.messages, dataRecords: seq.dataRecords, templateRecords: seq.templateRecords }, 'expected file agrees with the manifest');
      assert.equal(dump.records.length, records.length);
      assert.equal(raws.length, records.length);
      records.forEach((rec, k) => compareRecord(rec, dump.records[k] as DumpRecord, raws[k], `${seq.name} record ${k + 1}`));
    });
  }
});
