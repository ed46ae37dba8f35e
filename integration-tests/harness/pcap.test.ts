import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LINKTYPE_ETHERNET, readPcap, writePcap } from './pcap.js';

test('writePcap lays out the libpcap header and records; readPcap reads them back', () => {
  const packets = [
    { timeUs: 1_705_312_800_000_001, frame: Uint8Array.from([1, 2, 3]) },
    { timeUs: 1_705_312_801_999_999, frame: new Uint8Array(0) },
  ];
  const file = writePcap(packets);
  assert.equal(file.length, 24 + 16 + 3 + 16);
  assert.equal(file.readUInt32LE(0), 0xa1b2c3d4);
  assert.deepEqual([file.readUInt16LE(4), file.readUInt16LE(6)], [2, 4]);
  assert.equal(file.readUInt32LE(20), LINKTYPE_ETHERNET);
  assert.deepEqual([file.readUInt32LE(24), file.readUInt32LE(28), file.readUInt32LE(32), file.readUInt32LE(36)], [1_705_312_800, 1, 3, 3]);
  const back = readPcap(file);
  assert.equal(back.linkType, LINKTYPE_ETHERNET);
  assert.deepEqual(back.packets.map((p) => ({ timeUs: p.timeUs, frame: [...p.frame] })), packets.map((p) => ({ timeUs: p.timeUs, frame: [...p.frame] })));
});

test('bad times and damaged files are rejected with the reason', () => {
  assert.throws(() => writePcap([{ timeUs: -1, frame: new Uint8Array(1) }]), /bad packet time/);
  assert.throws(() => writePcap([{ timeUs: 1.5, frame: new Uint8Array(1) }]), /bad packet time/);
  const file = writePcap([{ timeUs: 0, frame: new Uint8Array(10) }]);
  assert.throws(() => readPcap(file.subarray(0, file.length - 1)), /overruns the file/);
  assert.throws(() => readPcap(file.subarray(0, 30)), /truncated record header/);
  const swapped = Buffer.from(file);
  swapped.writeUInt32BE(0xa1b2c3d4, 0);
  assert.throws(() => readPcap(swapped), /not a little-endian microsecond pcap/);
});
