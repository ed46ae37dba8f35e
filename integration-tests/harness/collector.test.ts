import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { test } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { HARNESS_COLLECT_FRAMING, HARNESS_COLLECT_TIMEOUT, headerOnlyMessage as message, splitIpfixStream, startTcpCollector, startUdpCollector } from './collector.js';

test('a stream splits at the message lengths, keeping an incomplete tail', () => {
  const stream = Buffer.concat([message(16, 1), message(20, 2), message(24, 3).subarray(0, 10)]);
  const { messages, rest } = splitIpfixStream(stream);
  assert.deepEqual(messages.map((m) => m.readUInt32BE(8)), [1, 2]);
  assert.equal(rest.length, 10);
  assert.deepEqual(splitIpfixStream(stream.subarray(0, 15)).messages, []);
  const bad = message(16, 1);
  bad.writeUInt16BE(3, 2);
  assert.throws(() => splitIpfixStream(bad), (e) => isFlowaggError(e, HARNESS_COLLECT_FRAMING));
});

test('the UDP collector keeps each datagram with its sender, and times out naming the shortfall', async () => {
  const collector = await startUdpCollector();
  const sender = createSocket('udp4');
  try {
    for (const seq of [1, 2, 3]) await new Promise<void>((resolve, reject) => sender.send(message(16 + seq, seq), collector.port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
    const got = await collector.waitForMessages(3, 5000);
    assert.deepEqual(got.map((m) => [m.bytes.length, m.bytes.readUInt32BE(8), m.from.address, m.session]), [
      [17, 1, '127.0.0.1', 0],
      [18, 2, '127.0.0.1', 0],
      [19, 3, '127.0.0.1', 0],
    ]);
    await assert.rejects(collector.waitForMessages(4, 50), (e) => isFlowaggError(e, HARNESS_COLLECT_TIMEOUT) && /3 of 4 messages/.test(e.message));
  } finally {
    sender.close();
    await collector.close();
  }
});

test('the TCP collector reassembles messages cut anywhere in the stream, per session', async () => {
  const collector = await startTcpCollector();
  try {
    const stream = Buffer.concat([message(16, 1), message(40, 2), message(17, 3)]);
    for (const session of [0, 1]) {
      const socket = connect(collector.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      for (let at = 0; at < stream.length; at += 7) {
        socket.write(stream.subarray(at, at + 7));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await collector.waitForMessages(3 * (session + 1), 5000);
      socket.end();
    }
    assert.deepEqual(collector.messages.map((m) => [m.session, m.bytes.readUInt32BE(8), m.bytes.length]), [
      [0, 1, 16], [0, 2, 40], [0, 3, 17],
      [1, 1, 16], [1, 2, 40], [1, 3, 17],
    ]);
  } finally {
    await collector.close();
  }
});
