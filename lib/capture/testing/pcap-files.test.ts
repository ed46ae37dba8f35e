import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LINKTYPE } from '../packet.js';
import { readPcapBuffer, writePcap } from './pcap-files.js';

test('writePcap lays out the libpcap header and records, and the production reader reads them back', () => {
  const packets = [
    { timeUs: 1_705_312_800_000_001, frame: Uint8Array.from([1, 2, 3]) },
    { timeUs: 1_705_312_801_999_999, frame: new Uint8Array(0) },
  ];
  const file = writePcap(packets);
  assert.equal(file.length, 24 + 16 + 3 + 16);
  assert.equal(file.readUInt32LE(0), 0xa1b2c3d4);
  assert.deepEqual([file.readUInt16LE(4), file.readUInt16LE(6)], [2, 4]);
  assert.equal(file.readUInt32LE(20), LINKTYPE.ETHERNET);
  assert.deepEqual([file.readUInt32LE(24), file.readUInt32LE(28), file.readUInt32LE(32), file.readUInt32LE(36)], [1_705_312_800, 1, 3, 3]);
  const back = readPcapBuffer(file);
  assert.deepEqual(back.map((f) => f.linkType), [LINKTYPE.ETHERNET, LINKTYPE.ETHERNET]);
  assert.deepEqual(back.map((f) => [...f.data]), [[1, 2, 3], []]);
  assert.deepEqual(back.map((f) => f.timestampMs), [1_705_312_800_000.001, 1_705_312_801_999.999]);
});

test('bad packet times are refused', () => {
  assert.throws(() => writePcap([{ timeUs: -1, frame: new Uint8Array(1) }]), /bad packet time/);
  assert.throws(() => writePcap([{ timeUs: 1.5, frame: new Uint8Array(1) }]), /bad packet time/);
});
