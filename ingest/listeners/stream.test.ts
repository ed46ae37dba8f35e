import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageOutcome, type StreamCloseReason, type StreamReader, type StreamSink, readStream } from './stream.js';
import { ConnectionAdmission } from '../../lib/listeners/admission.js';
import { listenTcp } from '../../lib/listeners/tcp.js';
import { until } from '../../lib/testing/until.js';

function message(length: number, fill: number): Buffer {
  const b = Buffer.alloc(length, fill);
  b.writeUInt16BE(10, 0);
  b.writeUInt16BE(length, 2);
  return b;
}

class FakeSink implements StreamSink {
  readonly messages: Buffer[] = [];
  readonly closes: StreamCloseReason[] = [];
  throttled = false;
  #drained: (() => void)[] = [];
  /** Fill 0xee: refused. Fill 0xcc: handled 20 bytes at a time (the rest comes back while 40 or more are left). */
  message(m: Buffer): MessageOutcome {
    this.messages.push(Buffer.from(m));
    if (m[4] === 0xee) return { kind: 'refused', reason: 'poisoned message' };
    if (m[4] === 0xcc && m.length >= 40) return { kind: 'partly', rest: message(m.length - 20, 0xcc) };
    return { kind: 'handled' };
  }
  whenDrained(cb: () => void): void {
    this.#drained.push(cb);
  }
  drain(): void {
    this.throttled = false;
    for (const cb of this.#drained.splice(0)) cb();
  }
  closed(reason: StreamCloseReason): void {
    this.closes.push(reason);
  }
}

async function server(sinkFor: () => FakeSink) {
  const readers: StreamReader[] = [];
  const listener = await listenTcp({ host: '127.0.0.1', port: 0, admission: new ConnectionAdmission({ maxConnections: 10, maxPerSource: 10, reservedForKnown: 0 }) }, (socket) => readers.push(readStream(socket, sinkFor())));
  const client = async (): Promise<Socket> => {
    const s = connect(listener.port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    return s;
  };
  return { listener, readers, client };
}

test('messages written in arbitrary pieces arrive whole and in order', async (t) => {
  const sink = new FakeSink();
  const { listener, client } = await server(() => sink);
  t.after(() => listener.close());
  const sent = Array.from({ length: 200 }, (_, i) => message(16 + ((i * 37) % 1500), i % 200));
  const stream = Buffer.concat(sent);
  const c = await client();
  for (let pos = 0; pos < stream.length; pos += 777) c.write(stream.subarray(pos, pos + 777));
  await until('all messages', () => sink.messages.length === 200);
  assert.deepEqual(sink.messages, sent);
  c.end();
  await until('close', () => sink.closes.length === 1);
  assert.deepEqual(sink.closes, [{ kind: 'end' }]);
});

test('a throttled sink pauses the socket: the exporter stops being drained and nothing piles up here', async (t) => {
  const sink = new FakeSink();
  const { listener, readers, client } = await server(() => sink);
  t.after(() => listener.close());
  const c = await client();
  sink.throttled = true;
  const chunk = Buffer.concat(Array.from({ length: 64 }, (_, i) => message(1024, i)));
  let written = 0;
  // Write until the exporter's own buffer fills: the kernel windows are full because nobody reads.
  while (c.writableLength < 8 * 1024 * 1024 && written < 64 * 1024 * 1024) {
    c.write(chunk);
    written += chunk.length;
    if (c.writableLength > 4 * 1024 * 1024) await sleep(20);
  }
  await until('the session to pause', () => readers[0]?.paused);
  const reader = readers[0]!;
  assert.ok(c.writableLength > 1024 * 1024, `exporter-side backlog ${c.writableLength} shows its writes are blocked`);
  assert.ok(reader.buffered <= 64 * 1024 + 65535, `collector holds ${reader.buffered} bytes, at most a chunk and a message`);
  assert.ok(sink.messages.length <= 1, 'at most the message that found the sink throttled was handled');
  sink.drain();
  await until('everything after the drain', () => sink.messages.length === written / 1024);
  assert.equal(reader.paused, false);
  c.destroy();
});

test('a malformed stream closes only its own connection', async (t) => {
  const sinks: FakeSink[] = [];
  const { listener, client } = await server(() => {
    const s = new FakeSink();
    sinks.push(s);
    return s;
  });
  t.after(() => listener.close());
  const good = await client();
  const bad = await client();
  const poisoned = await client();
  await until('three sessions', () => sinks.length === 3);
  bad.write(Buffer.concat([message(20, 1), Buffer.from('not ipfix at all')]));
  const poison = message(20, 0xee);
  poisoned.write(Buffer.concat([poison, message(20, 2)]));
  await until('the bad sessions to close', () => sinks[1]!.closes.length === 1 && sinks[2]!.closes.length === 1);
  assert.equal(sinks[1]!.closes[0]!.kind, 'malformed');
  assert.match((sinks[1]!.closes[0] as { message: string }).message, /not IPFIX: version/);
  assert.deepEqual(sinks[2]!.closes[0], { kind: 'malformed', message: 'poisoned message' });
  assert.equal(sinks[2]!.messages.length, 1, 'nothing after the rejected message is handled');
  await until('the exporter to see its connection closed', () => bad.closed);
  good.write(message(30, 3));
  await until('the good session to keep working', () => sinks[0]!.messages.length === 1);
  assert.equal(sinks[0]!.closes.length, 0);
  good.destroy();
  poisoned.destroy();
});

test('what an exporter sent before closing is still handled when the sink drains later', async (t) => {
  const sink = new FakeSink();
  const { listener, readers, client } = await server(() => sink);
  t.after(() => listener.close());
  const c = await client();
  sink.throttled = true;
  const sent = Array.from({ length: 50 }, (_, i) => message(100 + i, i));
  c.end(Buffer.concat(sent));
  await until('the session to pause', () => readers.length === 1 && readers[0]!.paused);
  await sleep(100);
  assert.deepEqual(sink.closes, [], 'not closed while messages wait');
  sink.drain();
  await until('the session to end', () => sink.closes.length === 1);
  assert.deepEqual(sink.messages, sent);
  assert.deepEqual(sink.closes, [{ kind: 'end' }]);
});

test('the rest of a message handled in part is handled before the next message', async (t) => {
  const sink = new FakeSink();
  const { listener, client } = await server(() => sink);
  t.after(() => listener.close());
  const c = await client();
  c.write(Buffer.concat([message(100, 0xcc), message(30, 5)]));
  await until('the parts and the next message', () => sink.messages.length === 6);
  assert.deepEqual(sink.messages.map((m) => [m.length, m[4]]), [[100, 0xcc], [80, 0xcc], [60, 0xcc], [40, 0xcc], [20, 0xcc], [30, 5]]);
  c.destroy();
});
