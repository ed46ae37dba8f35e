import assert from 'node:assert/strict';
import { test } from 'node:test';
import { putNumber, putUint32 } from './ascii-bytes.js';
import { rng } from './ipfix/testing/fuzz.js';

test('putNumber writes what String() spells, on edges and seeded random numbers of every length', () => {
  const rand = rng(42);
  const edges = [0, 1, 9, 10, 99, 100, 101, 999, 1000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 999_999_999, 1e9, 1e9 + 1, 1_700_000_000_000, 2 ** 53 - 1, 2 ** 53, 2 ** 64, -1, -0, 0.5, 1e21, -1.5e-7, Number.MAX_VALUE];
  const random = Array.from({ length: 20_000 }, () => Math.floor(rand() * 10 ** Math.floor(rand() * 17)));
  const b = Buffer.alloc(64);
  for (const n of [...edges, ...random]) assert.equal(b.toString('latin1', 3, putNumber(b, 3, n)), String(n), String(n));
});

test('putUint32 writes every digit count', () => {
  const b = Buffer.alloc(16);
  for (let n = 1, digits = 1; digits <= 10; n *= 10, digits++) {
    for (const x of [n, n + 7, Math.min(n * 10 - 1, 2 ** 32 - 1)]) assert.equal(b.toString('latin1', 0, putUint32(b, 0, x)), String(x));
  }
});
