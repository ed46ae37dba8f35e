import assert from 'node:assert/strict';
import { test } from 'node:test';
import { murmur2, partitionForKey } from './partitioner.js';

// The vectors of Apache Kafka's UtilsTest.testMurmur2.
const javaVectors: [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
  ['', 275646681],
];

test('murmur2 matches the Java client on Kafka\'s own vectors', () => {
  for (const [input, expected] of javaVectors) assert.equal(murmur2(Buffer.from(input)), expected, input);
});

test('partitionForKey is toPositive(murmur2) modulo the partition count', () => {
  assert.equal(partitionForKey(Buffer.from('21'), 7), (-973932308 & 0x7fffffff) % 7);
  for (const [input] of javaVectors) {
    const p = partitionForKey(Buffer.from(input), 12);
    assert.ok(p >= 0 && p < 12);
  }
});

test('murmur2 of a range is murmur2 of those bytes alone', () => {
  for (const [input, expected] of javaVectors) {
    const framed = Buffer.concat([Buffer.from('xyz'), Buffer.from(input), Buffer.from('q')]);
    assert.equal(murmur2(framed, 3, 3 + input.length), expected, input);
    assert.equal(partitionForKey(framed, 12, 3, 3 + input.length), partitionForKey(Buffer.from(input), 12), input);
  }
});
