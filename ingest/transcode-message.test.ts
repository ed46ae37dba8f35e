// A message of a session → FlowRecords: data sets that do not fit their template's layout are skipped whole
// and counted, never written; sets of unknown templates are counted as sets and bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IPFIX_ERR } from '../lib/ipfix/errors.js';
import { MessageEncoder } from '../lib/ipfix/message-encoder.js';
import type { Template } from '../lib/ipfix/types.js';
import { flowRecordReader } from '../schemas/flow-record.js';
import { element } from '../lib/ipfix/registry.js';
import { RunWriter } from './records/run-writer.js';
import { recordsOfRuns } from '../lib/log/record-runs.js';
import { TranscoderCache } from './records/transcoder-cache.js';
import { ExporterSession } from './session.js';
import { transcodeMessage } from './transcode-message.js';

const layout = (names: string[], id = 256): Template => ({
  id, observationDomainId: 1, scopeFieldCount: 0, fields: names.map((n) => ({ ie: element(n), length: element(n).length, scope: false })),
});
// Finding 7's two layouts: 29 and 22 bytes per record.
const FIVE_TUPLE = ['sourceIPv4Address', 'destinationIPv4Address', 'sourceTransportPort', 'destinationTransportPort', 'protocolIdentifier'];
const OLD = layout([...FIVE_TUPLE, 'octetDeltaCount', 'flowStartMilliseconds']);
const NEW = layout([...FIVE_TUPLE, 'ingressInterface', 'egressInterface', 'ipClassOfService']);

function messages(template: Template, records: number, withTemplate: boolean): Buffer[] {
  const enc = new MessageEncoder({ observationDomainId: 1, exportTime: () => 1_700_000_000 });
  enc.addTemplate(template);
  if (!withTemplate) enc.flush();
  for (let i = 0; i < records; i++) {
    enc.addRecord(template, template.fields.map((f) => (f.ie.type === 'ipv4Address' ? `10.0.0.${i + 1}` : i + 1)));
  }
  return enc.flush().map((m) => Buffer.from(m));
}

function setup() {
  const session = new ExporterSession('udp', { address: '10.9.9.9', port: 1 }, { templateTtlMs: 60_000, now: () => 0 });
  const cache = new TranscoderCache({ maxLayouts: 16, compileAfterRecords: 4 });
  const writer = new RunWriter();
  return { session, run: (buf: Buffer) => transcodeMessage(session, buf, writer, 0, cache) };
}

test('data in a layout the session does not know yet is skipped whole and counted, never written', () => {
  assert.deepEqual([OLD, NEW].map((t) => t.fields.reduce((n, f) => n + f.length, 0)), [29, 22]);
  const { run } = setup();
  for (const m of messages(OLD, 3, true)) assert.equal(run(m).records, 3);
  // The exporter redefined 256 (22 bytes) on another replica; its data reaches this one first.
  const [data] = messages(NEW, 12, false);
  const t = run(data!);
  assert.equal(t.records, 0);
  assert.deepEqual(t.errors.map((e) => e.code), [IPFIX_ERR.LAYOUT_MISMATCH]);
  assert.deepEqual(t.skipped, [{ reason: IPFIX_ERR.LAYOUT_MISMATCH, bytes: 4 + 12 * 22 }]);
  assert.equal(t.hasData, true);
});

test('a set cut off in its last record, or with non-zero padding, is a layout mismatch; zero padding is not', () => {
  const { run } = setup();
  run(messages(OLD, 1, true)[0]!);
  const [good] = messages(OLD, 2, false);
  const padded = Buffer.concat([good!, Buffer.alloc(3)]);
  padded.writeUInt16BE(padded.length, 2);
  padded.writeUInt16BE(padded.readUInt16BE(18) + 3, 18);
  assert.equal(run(padded).records, 2, 'zero padding shorter than a record is fine');
  padded[padded.length - 1] = 7;
  const t = run(padded);
  assert.deepEqual([t.records, t.errors[0]?.code], [0, IPFIX_ERR.LAYOUT_MISMATCH]);
});

test('a data set of an unknown template counts as a skipped set with its bytes', () => {
  const { run } = setup();
  const [data] = messages(OLD, 5, false);
  const t = run(data!);
  assert.deepEqual(t.skipped, [{ reason: IPFIX_ERR.UNKNOWN_TEMPLATE, bytes: 4 + 5 * 29 }]);
  assert.equal(t.hasData, true);
});

test('the records written carry what the message and session say, across the compile threshold', () => {
  const { run } = setup();
  const reader = flowRecordReader();
  const records = messages(OLD, 10, true).flatMap((m) => recordsOfRuns(run(m).runs));
  assert.equal(records.length, 10);
  records.forEach((r, i) => {
    const v = reader.decode(r.value!);
    assert.deepEqual([v.exporterAddress, v.templateId, v.observationDomainId, v.octetDeltaCount], ['10.9.9.9', 256, 1, i + 1]);
  });
});
