import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeMessage } from './decode-message.js';
import { MessageEncoder } from './message-encoder.js';
import { u16 } from './message-header.js';
import { element } from './registry.js';
import { cutAtTemplateBudget } from './template-parts.js';
import { TemplateStore } from './template-store.js';
import { makeTemplate, templateField as field } from './testing/templates.js';
import type { Template } from './types.js';

const ODID = 9;
const narrow = (id: number) => makeTemplate(id, [field('sourceIPv4Address'), field('destinationTransportPort')], ODID);
// An enterprise element (8 bytes a specifier) and an options template (scope count): the other record shapes.
const enterprise = makeTemplate(5000, [field('sourcePodName', 0xffff), { ie: element('octetDeltaCount'), length: 8, scope: false }], ODID);
const options = makeTemplate(5001, [{ ie: element('exportingProcessId'), length: 4, scope: true }, field('systemInitTimeMilliseconds')], ODID, 1);

/** One message: data of a known template, 900 templates of three shapes, a withdrawal, and data of the last template. */
function floodMessage(store: TemplateStore): Buffer {
  const enc = new MessageEncoder({ observationDomainId: ODID, exportTime: () => 1_700_000_000 });
  const known = narrow(256);
  enc.addTemplate(known);
  decodeMessage(Buffer.from(enc.flush()[0]!), store);
  enc.addRecord(known, ['10.0.0.1', 80]);
  const templates: Template[] = [];
  for (let i = 0; i < 900; i++) templates.push(i % 300 === 7 ? enterprise : i % 300 === 8 ? options : narrow(300 + i));
  for (const t of templates) enc.addTemplate(t);
  enc.withdrawTemplate(256);
  enc.addRecord(narrow(300 + 899), ['10.0.0.2', 443]);
  const messages = enc.flush();
  assert.equal(messages.length, 1, 'the test needs everything in one message');
  return Buffer.from(messages[0]!);
}

const templateBytes = (part: Buffer) => decodeMessage(part, new TemplateStore({ transport: 'tcp' })).templates.reduce((n, t) => n + 4 + (t.scopeFieldCount > 0 ? 2 : 0) + t.fields.reduce((m, f) => m + (f.ie.pen === 0 ? 4 : 8), 0), 0);

test('a message cut at a template budget, part after part, leaves the store and the records as the whole message does', () => {
  const whole = new TemplateStore({ transport: 'tcp' });
  const parted = new TemplateStore({ transport: 'tcp' });
  const message = floodMessage(whole);
  floodMessage(parted);
  const expected = decodeMessage(message, whole);
  assert.deepEqual(expected.errors, []);

  const parts: Buffer[] = [];
  for (let rest: Buffer | undefined = message; rest !== undefined; ) {
    const cut = cutAtTemplateBudget(rest, 512);
    parts.push(cut.first);
    rest = cut.rest;
  }
  assert.ok(parts.length >= 10, `${parts.length} parts`);
  const records = [];
  for (const part of parts) {
    assert.equal(u16(part, 2), part.length, 'each part is a whole message');
    assert.deepEqual(part.subarray(4, 16), message.subarray(4, 16), 'with the message\'s header');
    assert.ok(templateBytes(part) <= 512, 'and template records within the budget');
    const decoded = decodeMessage(part, parted);
    assert.deepEqual(decoded.errors, []);
    records.push(...decoded.records.map((r) => r.values));
  }
  assert.deepEqual(records, expected.records.map((r) => r.values));
  assert.deepEqual(parted.all(), whole.all());
  assert.equal(parted.get(ODID, 256), undefined, 'the withdrawal in the last part took effect');
});

test('a message within the budget, or one the walk cannot delimit, is left whole', () => {
  const store = new TemplateStore({ transport: 'tcp' });
  const message = floodMessage(store);
  assert.deepEqual(cutAtTemplateBudget(message, 65535), { first: message, rest: undefined });
  const overrun = Buffer.from(message);
  overrun.writeUInt16BE(0xfff0, 16 + 2); // the first set claims more bytes than the message has
  assert.deepEqual(cutAtTemplateBudget(overrun, 512), { first: overrun, rest: undefined });
});
