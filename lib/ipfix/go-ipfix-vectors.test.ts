// The literal messages of go-ipfix's collector tests (../shared/fixtures/ipfix/go-ipfix-vectors.tsv),
// each with its expected result. The file is read here, not copied; every vector must have a case.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { decodeMessage } from './decode-message.js';
import { IPFIX_ERR, type IpfixErrorCode, isIpfixError } from './errors.js';
import { TemplateStore } from './template-store.js';
import { SHARED_IPFIX } from './testing/fixtures.js';

const vectors = new Map(
  readFileSync(new URL('go-ipfix-vectors.tsv', SHARED_IPFIX), 'utf8').trim().split('\n').slice(1)
    .map((line) => line.split('\t'))
    .map(([name = '', hex = '']) => [name, Buffer.from(hex, 'hex')] as const),
);

function vector(name: string): Buffer {
  const v = vectors.get(name);
  assert.ok(v, `vector ${name} is in the file`);
  return v;
}

function storeWithTemplate(name = 'validTemplatePacket'): TemplateStore {
  const store = new TemplateStore({ transport: 'udp' });
  const m = decodeMessage(vector(name), store);
  assert.deepEqual(m.errors, []);
  return store;
}

function throwsCode(fn: () => unknown, code: IpfixErrorCode): void {
  assert.throws(fn, (err: unknown) => isIpfixError(err) && err.code === code);
}

/** The message with its header length rewritten to the bytes present, to reach the set-level check. */
function withLengthFixed(b: Buffer): Buffer {
  const c = Buffer.from(b);
  c.writeUInt16BE(c.length, 2);
  return c;
}

const cases: Record<string, () => void> = {
  validTemplatePacket: () => {
    const store = new TemplateStore({ transport: 'udp' });
    const m = decodeMessage(vector('validTemplatePacket'), store);
    assert.deepEqual(m.header, { version: 10, length: 40, exportTime: 0x5f9a6b7f, sequenceNumber: 0, observationDomainId: 1 });
    assert.equal(m.templates.length, 1);
    const t = m.templates[0];
    assert.equal(t?.id, 256);
    assert.deepEqual(t?.fields.map((f) => [f.ie.pen, f.ie.id, f.ie.name, f.length]), [
      [0, 8, 'sourceIPv4Address', 4],
      [0, 12, 'destinationIPv4Address', 4],
      [56506, 101, 'sourcePodName', 65535],
    ]);
    assert.equal(store.get(1, 256), t);
  },
  validDataPacket: () => {
    const m = decodeMessage(vector('validDataPacket'), storeWithTemplate());
    assert.deepEqual(m.errors, []);
    assert.deepEqual(m.records.map((r) => r.values), [['1.2.3.4', '5.6.7.8', 'pod1']]);
  },
  validTemplatePacketIPv6: () => {
    const m = decodeMessage(vector('validTemplatePacketIPv6'), new TemplateStore({ transport: 'udp' }));
    assert.deepEqual(m.templates[0]?.fields.map((f) => [f.ie.name, f.length]), [['sourceIPv6Address', 16], ['destinationIPv6Address', 16]]);
  },
  validDataPacketIPv6: () => {
    const m = decodeMessage(vector('validDataPacketIPv6'), storeWithTemplate('validTemplatePacketIPv6'));
    assert.equal(m.header.sequenceNumber, 1);
    assert.deepEqual(m.records.map((r) => r.values), [['2001:0:3238:dfe1:63::fefb', '2001:0:3238:dfe1:63::fefb']]);
  },
  invalidVersion: () => {
    const store = storeWithTemplate();
    throwsCode(() => decodeMessage(vector('invalidVersion'), store), IPFIX_ERR.BAD_VERSION);
    assert.ok(store.get(1, 256), 'earlier templates kept');
  },
  truncatedEnterpriseNumber: () => {
    const store = storeWithTemplate();
    throwsCode(() => decodeMessage(vector('truncatedEnterpriseNumber'), store), IPFIX_ERR.LENGTH_MISMATCH);
    // With a consistent message length the set is still cut inside the enterprise number.
    const m = decodeMessage(withLengthFixed(vector('truncatedEnterpriseNumber')), store);
    assert.deepEqual(m.errors.map((e) => e.code), [IPFIX_ERR.SET_OVERRUNS_MESSAGE]);
    const inSet = Buffer.from(withLengthFixed(vector('truncatedEnterpriseNumber')));
    inSet.writeUInt16BE(inSet.length - 16, 18); // set length = what is there
    const t = decodeMessage(inSet, store);
    assert.deepEqual(t.errors.map((e) => [e.code, e.context.offset, e.context.templateId]), [[IPFIX_ERR.TRUNCATED_TEMPLATE, 20, 256]]);
    assert.ok(store.get(1, 256), 'the earlier template 256 is kept (go-ipfix deletes it)');
  },
  truncatedTemplateHeader: () => {
    const store = storeWithTemplate();
    throwsCode(() => decodeMessage(vector('truncatedTemplateHeader'), store), IPFIX_ERR.LENGTH_MISMATCH);
    const m = decodeMessage(withLengthFixed(vector('truncatedTemplateHeader')), store);
    assert.deepEqual(m.errors.map((e) => [e.code, e.context.offset, e.context.setIndex]), [[IPFIX_ERR.SET_OVERRUNS_MESSAGE, 16, 0]]);
    assert.ok(store.get(1, 256));
  },
  setHeaderOnly: () => {
    const store = storeWithTemplate();
    throwsCode(() => decodeMessage(vector('setHeaderOnly'), store), IPFIX_ERR.LENGTH_MISMATCH);
    const m = decodeMessage(withLengthFixed(vector('setHeaderOnly')), store);
    assert.deepEqual(m.errors.map((e) => [e.code, e.context.offset]), [[IPFIX_ERR.SHORT_SET, 16]]);
    assert.deepEqual(m.records, []);
  },
};

describe('go-ipfix collector vectors', () => {
  it('every vector in the file has a case here', () => {
    assert.deepEqual([...vectors.keys()].sort(), Object.keys(cases).sort());
  });
  for (const [name, run] of Object.entries(cases)) it(name, run);
});
