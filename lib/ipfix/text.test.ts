import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rng } from './testing/fuzz.js';
import { formatIpv6, putIpv6 } from './text.js';

/** The WHATWG URL parser's serialisation of an IPv6 host: RFC 5952's, IPv4-mapped addresses in hex too. */
const reference = (a: Buffer) => new URL(`http://[${Array.from({ length: 8 }, (_, i) => a.readUInt16BE(2 * i).toString(16)).join(':')}]/`).hostname.slice(1, -1);

test('putIpv6 writes the RFC 5952 text (the URL parser\'s) of seeded random addresses with runs of zero groups', () => {
  const rand = rng(5952);
  const out = Buffer.alloc(48);
  const groups = [0, 0, 0, 1, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0xffff];
  for (let n = 0; n < 20_000; n++) {
    const a = Buffer.alloc(20);
    for (let i = 0; i < 8; i++) a.writeUInt16BE(rand() < 0.8 ? groups[Math.floor(rand() * groups.length)]! : Math.floor(rand() * 65536), 2 + 2 * i);
    const expected = reference(a.subarray(2, 18));
    assert.equal(out.toString('latin1', 5, putIpv6(out, 5, a, 2)), expected);
    assert.equal(formatIpv6(a, 2), expected);
  }
  assert.equal(formatIpv6(Buffer.alloc(16), 0), '::');
  assert.equal(formatIpv6(Buffer.from('20010db8000000000001000000000001', 'hex'), 0), '2001:db8::1:0:0:1');
});
