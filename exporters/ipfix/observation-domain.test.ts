import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultObservationDomainId, fnv1_32, uuidBytes } from './observation-domain.js';

test('FNV-1 32-bit matches the published vectors (Go hash/fnv New32)', () => {
  assert.equal(fnv1_32(Buffer.from('')), 0x811c9dc5);
  assert.equal(fnv1_32(Buffer.from('a')), 0x050c5d7e);
  assert.equal(fnv1_32(Buffer.from('foobar')), 0x31f0b262);
});

test('the default observation domain id hashes the 16 bytes of the cluster UUID, not its text', () => {
  const uuid = '8d0f6a4e-2b1c-4d3e-9f8a-7b6c5d4e3f2a';
  assert.deepEqual(Buffer.from(uuidBytes(uuid)!), Buffer.from('8d0f6a4e2b1c4d3e9f8a7b6c5d4e3f2a', 'hex'));
  assert.equal(defaultObservationDomainId(uuid), fnv1_32(Buffer.from('8d0f6a4e2b1c4d3e9f8a7b6c5d4e3f2a', 'hex')));
  assert.notEqual(defaultObservationDomainId(uuid), fnv1_32(Buffer.from(uuid)));
  assert.equal(defaultObservationDomainId(undefined), 0);
  assert.equal(defaultObservationDomainId('not-a-uuid'), 0);
});
