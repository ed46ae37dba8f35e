import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CappedLabel, OVERFLOW_LABEL } from './capped-label.js';

test('a capped label keeps the first values it admits and reports the rest as the overflow series', () => {
  const label = new CappedLabel(2);
  assert.equal(label.of('a', false), OVERFLOW_LABEL, 'not admitted without permission');
  assert.equal(label.of('a'), 'a');
  assert.equal(label.of('b'), 'b');
  assert.equal(label.of('c'), OVERFLOW_LABEL);
  assert.equal(label.of('a', false), 'a', 'an admitted value stays');
  assert.equal(label.size, 2);
});
