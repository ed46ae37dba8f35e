import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTable } from './table.js';

test('columns are padded to the widest cell, numbers right-aligned, null shown as -', () => {
  const out = formatTable(['GROUP', 'LAG'], [['exporter-ipfix', 5], ['p', 12345], ['q', null]]);
  assert.equal(out, ['GROUP             LAG', 'exporter-ipfix      5', 'p               12345', 'q                   -', ''].join('\n'));
});
