// Value encodings that no registry element exercises through a template (signed8/16/64, float32),
// reduced sizes, NTP timestamps and the length rules per type.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IPFIX_ERR } from './errors.js';
import { readValue, validFieldLength, writeValue } from './field-codec.js';
import type { AbstractType, FieldValue } from './types.js';

function roundTrip(type: AbstractType, len: number, value: FieldValue, hex: string): void {
  const b = new Uint8Array(len);
  writeValue(type, b, 0, len, value);
  assert.equal(Buffer.from(b).toString('hex'), hex, `${type}/${len} wire`);
  assert.deepEqual(readValue(type, b, 0, len), value, `${type}/${len} value`);
}

describe('field values', () => {
  it('signed integers, full and reduced size, sign-extended', () => {
    roundTrip('signed8', 1, -128, '80');
    roundTrip('signed16', 2, -2, 'fffe');
    roundTrip('signed16', 1, -1, 'ff');
    roundTrip('signed64', 8, -(2n ** 63n), '8000000000000000');
    roundTrip('signed64', 8, -1, 'ffffffffffffffff');
    roundTrip('signed64', 3, -8388608, '800000');
    roundTrip('signed64', 8, Number.MAX_SAFE_INTEGER, '001fffffffffffff');
  });

  it('unsigned integers: numbers up to 2^53 - 1, bigint above', () => {
    roundTrip('unsigned64', 8, 2 ** 53 - 1, '001fffffffffffff');
    roundTrip('unsigned64', 8, 2n ** 53n, '0020000000000000');
    roundTrip('unsigned64', 7, 2n ** 56n - 1n, 'ffffffffffffff');
    roundTrip('unsigned32', 3, 0xabcdef, 'abcdef');
  });

  it('floats: float32, float64, and float64 reduced to 4 bytes', () => {
    roundTrip('float32', 4, 1.5, '3fc00000');
    roundTrip('float64', 8, -0.1, 'bfb999999999999a');
    roundTrip('float64', 4, 0.5, '3f000000');
  });

  it('NTP timestamps: nanoseconds exactly, microseconds rounded to whole µs', () => {
    roundTrip('dateTimeNanoseconds', 8, 1_700_000_000_000_000_001n, 'e8fe6f80' + '00000004');
    const b = Buffer.from('e8fe6f8080000000', 'hex'); // NTP seconds of 2023-11-14T22:13:20Z, fraction .5
    assert.equal(readValue('dateTimeMicroseconds', b, 0, 8), 1_700_000_000_500_000_000n);
    assert.equal(readValue('dateTimeNanoseconds', Buffer.from('0000000000000000', 'hex'), 0, 8), -2_208_988_800_000_000_000n);
  });

  it('length rules per type', () => {
    assert.ok(validFieldLength('unsigned64', 3));
    assert.ok(!validFieldLength('unsigned16', 3));
    assert.ok(!validFieldLength('ipv4Address', 3));
    assert.ok(validFieldLength('ipv4Address', 65535));
    assert.ok(!validFieldLength('float64', 6));
    assert.throws(() => readValue('ipv6Address', new Uint8Array(4), 0, 4), { code: IPFIX_ERR.BAD_FIELD_LENGTH });
    assert.throws(() => readValue('boolean', new Uint8Array([3]), 0, 1), { code: IPFIX_ERR.BAD_BOOLEAN });
    assert.throws(() => writeValue('unsigned8', new Uint8Array(1), 0, 1, 256), { code: IPFIX_ERR.BAD_VALUE });
    assert.throws(() => writeValue('signed8', new Uint8Array(1), 0, 1, 128), { code: IPFIX_ERR.BAD_VALUE });
  });
});
