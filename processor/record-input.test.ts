import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanned } from './testing/fakes.js';
import { SourceIds } from './record-input.js';

test('a source id is the exporter address and observation domain, the same string each time it comes back', () => {
  const ids = new SourceIds();
  const of = (exporter: string, observationDomainId: number) => ids.of(scanned({ exporter, observationDomainId, start: 1, end: 2 }));
  const first = of('10.0.0.1', 7);
  assert.equal(first, '10.0.0.1/7');
  assert.equal(of('10.0.0.1', 8), '10.0.0.1/8', 'another domain of the same exporter is another source');
  assert.equal(of('10.0.0.11', 7), '10.0.0.11/7');
  assert.equal(of('fd00::1', 7), 'fd00::1/7');
  assert.equal(of('10.0.0.1', 7), first, 'a source seen before, after others');
  assert.equal(of('10.0.0.1', 8), '10.0.0.1/8');
  assert.equal(of('10.0.0.1', 8), '10.0.0.1/8', 'the same source twice in a row');
  assert.equal(of('10.0.0.2', 8), '10.0.0.2/8', 'after it, another address of the same length and domain');
  assert.equal(of('10.0.0.2', 9), '10.0.0.2/9', 'after it, the same address in another domain');
});
