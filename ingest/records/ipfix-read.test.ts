import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readValue } from '../../lib/ipfix/field-codec.js';
import { MAX_LONG } from '../../schemas/avro-binary.js';
import { hasText, ntpMicrosToMs, ntpNanosToMs, safeSignedAt, safeUnsigned64, safeUnsignedAt, signedAt, unsignedAt } from './ipfix-read.js';

/** What the transcoder must produce for a codec value: the number when avsc can write it as a long, else NaN. */
const expected = (v: number | bigint) => (Math.abs(Number(v)) <= MAX_LONG ? Number(v) : NaN);

const floorDiv = (a: bigint, b: bigint) => (a % b !== 0n && a < 0n ? a / b - 1n : a / b);

/** Byte patterns around the 2^53 boundaries and anywhere else. */
const edgy = (len: number) =>
  fc.oneof(
    fc.uint8Array({ minLength: len, maxLength: len }),
    fc.constantFrom(0x00, 0x1f, 0x20, 0xdf, 0xe0, 0xff, 0x7f, 0x80).chain((top) =>
      fc.constantFrom(0x00, 0xff).map((fill) => Uint8Array.from({ length: len }, (_, i) => (i === 0 ? top : i < len - 6 ? fill : fill ^ (i === len - 1 ? 1 : 0)))),
    ),
  );

test('integer readers agree with the codec, with NaN exactly where avsc could not hold the value', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }).chain((len) => fc.tuple(fc.constant(len), edgy(len))), ([len, b]) => {
      const u = readValue('unsigned64', b, 0, len) as number | bigint;
      const s = readValue('signed64', b, 0, len) as number | bigint;
      if (len <= 6) {
        assert.equal(unsignedAt(b, 0, len), u);
        assert.equal(signedAt(b, 0, len), s);
      } else {
        assert.deepEqual(safeUnsignedAt(b, 0, len), expected(u));
        assert.deepEqual(safeSignedAt(b, 0, len), expected(s));
        if (len === 8) assert.deepEqual(safeUnsigned64(new DataView(b.buffer, b.byteOffset, 8), 0), expected(u));
      }
    }),
    { numRuns: 2000 },
  );
  // The boundaries themselves: ±(2^53 − 2) are longs, ±(2^53 − 1) are not (avsc refuses them).
  const be = (v: bigint) => Buffer.from(BigInt.asUintN(64, v).toString(16).padStart(16, '0'), 'hex');
  assert.equal(safeUnsignedAt(be(2n ** 53n - 2n), 0, 8), MAX_LONG);
  assert.ok(Number.isNaN(safeUnsignedAt(be(2n ** 53n - 1n), 0, 8)));
  assert.equal(safeSignedAt(be(-(2n ** 53n) + 2n), 0, 8), -MAX_LONG);
  assert.ok(Number.isNaN(safeSignedAt(be(-(2n ** 53n) + 1n), 0, 8)));
  assert.equal(safeSignedAt(be(-1n), 0, 8), -1);
});

test('NTP times in ms are the floor of the codec nanosecond values, including rounding across a millisecond', () => {
  const ntp = (sec: number, frac: number) => {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(sec, 0);
    b.writeUInt32BE(frac, 4);
    return b;
  };
  const check = (b: Uint8Array) => {
    assert.equal(ntpMicrosToMs(b, 0), Number(floorDiv(readValue('dateTimeMicroseconds', b, 0, 8) as bigint, 1_000_000n)));
    assert.equal(ntpNanosToMs(b, 0), Number(floorDiv(readValue('dateTimeNanoseconds', b, 0, 8) as bigint, 1_000_000n)));
  };
  fc.assert(fc.property(fc.nat({ max: 2 ** 32 - 1 }), fc.nat({ max: 2 ** 32 - 1 }), (sec, frac) => check(ntp(sec, frac))), { numRuns: 2000 });
  // Fractions just below a millisecond (and a second) boundary, where rounding to µs or ns carries over.
  for (const frac of [4294966, 4294967, 4294967 * 999, 2 ** 32 - 1, 2 ** 32 - 2, 2 ** 32 - 4295]) check(ntp(3_908_000_000, frac));
  assert.equal(ntpNanosToMs(ntp(2_208_988_800, 4294966), 0), 1); // 0.99999970 ms rounds to 1,000,000 ns
  assert.equal(ntpMicrosToMs(ntp(2_208_988_800, 4294966), 0), 1);
  assert.equal(ntpMicrosToMs(ntp(0, 0), 0), -2_208_988_800_000); // before 1970: negative, not wrapped
});

test('hasText ignores trailing NULs', () => {
  assert.equal(hasText(Uint8Array.of(0, 0), 0, 2), false);
  assert.equal(hasText(Uint8Array.of(0x61, 0), 0, 2), true);
  assert.equal(hasText(Uint8Array.of(), 0, 0), false);
});
