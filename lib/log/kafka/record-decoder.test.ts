// The fast record decoder must return exactly what kafkajs's own decoder returns.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import { kafkajsPatched } from './kafkajs.js';
import { type BatchContext, type DecoderLike, decodeRecord } from './record-decoder.js';

const require = createRequire(import.meta.url);
const RECORD_DECODER = require.resolve('kafkajs/src/protocol/recordBatch/record/v0/decoder.js');
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (buffer: Buffer) => DecoderLike;
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (record: object) => { buffer: Buffer };
type RecordDecoder = (decoder: DecoderLike, context: BatchContext) => unknown;
const original = (() => {
  const installed = require.cache[RECORD_DECODER];
  delete require.cache[RECORD_DECODER];
  try {
    return require(RECORD_DECODER) as RecordDecoder;
  } finally {
    require.cache[RECORD_DECODER] = installed;
  }
})();

/** Decodes one encoded record (length-prefixed, as in a batch) with both decoders. */
function both(record: object, context: BatchContext): [unknown, unknown] {
  const bytes = encodeRecord(record).buffer;
  const inner = (d: DecoderLike) => new Decoder(d.readVarIntBytes()!);
  return [decodeRecord(inner(new Decoder(bytes)), context), original(inner(new Decoder(bytes)), context)];
}

test('the fast decoder is installed in kafkajs', () => {
  assert.equal(kafkajsPatched, true);
  assert.equal(require(RECORD_DECODER), decodeRecord);
});

test('records decode as kafkajs decodes them', () => {
  const header = fc.tuple(fc.constantFrom('a', 'b', 'exporter'), fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)));
  fc.assert(
    fc.property(
      fc.record({
        offsetDelta: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        timestampDelta: fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.constantFrom(2 ** 50 + 3, -(2 ** 52))),
        key: fc.option(fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)), { nil: null }),
        value: fc.option(fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)), { nil: null }),
        headers: fc.array(header, { maxLength: 4 }),
      }),
      fc.record({
        firstOffset: fc.constantFrom('0', '41', '9007199254740000'),
        firstTimestamp: fc.constantFrom('1795000000000', '-1', '0'),
        maxTimestamp: fc.constant('1795000009999'),
        timestampType: fc.constantFrom(0, 1),
        isControlBatch: fc.boolean(),
        magicByte: fc.constant(2),
      }),
      (r, context) => {
        // kafkajs's encoder takes repeated header names as arrays.
        const headers: Record<string, Buffer[]> = {};
        for (const [k, v] of r.headers) (headers[k] ??= []).push(v);
        const [fast, theirs] = both({ ...r, headers }, context);
        assert.deepEqual(fast, theirs);
      },
    ),
    { numRuns: 500 },
  );
});
