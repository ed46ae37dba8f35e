import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Template, type TemplateField, VARIABLE_LENGTH } from '../../lib/ipfix/types.js';
import { FLOW_RECORD_FIELDS } from '../../schemas/flow-record.js';
import { element, lookupElement } from '../../lib/ipfix/registry.js';
import { planRecord } from './plan.js';

const f = (name: string, length?: number): TemplateField => ({ ie: element(name), length: length ?? element(name).length, scope: false });
const template = (fields: TemplateField[]): Template => ({ id: 256, observationDomainId: 1, fields, scopeFieldCount: 0 });
const fieldIndex = (name: string) => FLOW_RECORD_FIELDS.findIndex((x) => x.name === name);

test('the most precise time element is chosen; the others are kept in extras', () => {
  const plan = planRecord(template([f('flowStartSysUpTime'), f('flowStartSeconds'), f('flowStartMilliseconds'), f('flowEndDeltaMicroseconds', 2), f('systemInitTimeMilliseconds')]), FLOW_RECORD_FIELDS);
  assert.deepEqual(plan.time.flowStart, { index: 2, source: 'milliseconds' });
  assert.deepEqual(plan.time.flowEnd, { index: 3, source: 'deltaMicroseconds' });
  assert.equal(plan.systemInitIndex, 4);
  assert.deepEqual(plan.extras, [
    { index: 0, conditional: false },
    { index: 1, conditional: false },
    { index: 2, conditional: true }, // a millisecond time beyond the long range goes to extras
    { index: 4, conditional: false },
  ]);
});

test('a typed field takes the first occurrence whose length it can hold', () => {
  const plan = planRecord(
    template([f('sourceTransportPort', VARIABLE_LENGTH), f('sourceTransportPort', 1), f('sourceTransportPort'), f('octetDeltaCount', 4), f('octetDeltaCount')]),
    FLOW_RECORD_FIELDS,
  );
  assert.equal(plan.sourceIndex[fieldIndex('sourceTransportPort')], 1); // reduced-size, not variable-length
  assert.equal(plan.sourceIndex[fieldIndex('octetDeltaCount')], 3);
  assert.deepEqual(plan.extras, [{ index: 0, conditional: false }, { index: 2, conditional: false }, { index: 4, conditional: false }]);
});

test('8-byte counters are conditional, shorter ones are not; unknown elements are extras', () => {
  const plan = planRecord(template([f('packetDeltaCount'), f('packetTotalCount', 6), { ie: lookupElement(9, 9), length: 4, scope: false }, f('sourceIPv6Address')]), FLOW_RECORD_FIELDS);
  assert.deepEqual(plan.extras, [{ index: 0, conditional: true }, { index: 2, conditional: false }]);
  assert.equal(plan.sourceIndex[fieldIndex('sourceIPv6Address')], 3);
  assert.equal(plan.time.flowStart, undefined);
});
