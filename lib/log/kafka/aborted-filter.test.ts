import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { type AbortedTransaction, type FetchedMessage, filterAbortedMessages } from './aborted-filter.js';
import { kafkajsPatched } from './kafkajs.js';

const require = createRequire(import.meta.url);
const ABORT = Buffer.from([0, 0, 0, 0]);
const COMMIT = Buffer.from([0, 0, 0, 1]);

/** A partition written by producers 1, 2 and 3 in turn, each in a transaction; 1 and 2 aborted, 3 committed. */
function interleaved(): { messages: FetchedMessage[]; aborted: AbortedTransaction[] } {
  const messages: FetchedMessage[] = [];
  const record = (producerId: string, key: Buffer | null = Buffer.from('k'), isControlBatch = false) =>
    messages.push({ offset: String(messages.length), key, batchContext: { producerId, inTransaction: true, isControlBatch } });
  for (let round = 0; round < 4; round++) for (const p of ['1', '2', '3']) record(p);
  record('1', ABORT, true);
  record('2', ABORT, true);
  record('3', COMMIT, true);
  record('1');
  return { messages, aborted: [{ producerId: '2', firstOffset: '1' }, { producerId: '1', firstOffset: '0' }] };
}

const producersOf = (ms: readonly FetchedMessage[]) => ms.filter((m) => !m.batchContext.isControlBatch).map((m) => m.batchContext.producerId);

test('a fetch that starts inside two aborted transactions returns only the committed records', () => {
  const { messages, aborted } = interleaved();
  for (const from of [0, 1, 2, 5, 6, 9]) {
    const kept = filterAbortedMessages({ messages: messages.slice(from), abortedTransactions: aborted });
    // Producer 3's records of the rounds fetched, and producer 1's record after its abort marker.
    const committed = messages.slice(from).filter((m) => m.batchContext.producerId === '3' && !m.batchContext.isControlBatch).length;
    assert.deepEqual(producersOf(kept), [...Array<string>(committed).fill('3'), '1'], `fetched from offset ${from}`);
  }
});

test("kafkajs 2.2.4's own filter lets aborted records through there; the backend's kafkajs uses this one", () => {
  const { messages, aborted } = interleaved();
  const path = require.resolve('kafkajs/src/consumer/filterAbortedMessages.js');
  const installed = require.cache[path];
  delete require.cache[path];
  const original = require(path) as typeof filterAbortedMessages;
  require.cache[path] = installed;
  assert.deepEqual(producersOf(original({ messages: messages.slice(6), abortedTransactions: aborted })).slice(0, 1), ['1'], "kafkajs's filter keeps producer 1's aborted record at offset 6");

  assert.ok(kafkajsPatched);
  assert.equal(require(path), filterAbortedMessages, 'kafkajs.ts installs the filter in kafkajs');
  const Batch = require('kafkajs/src/consumer/batch.js') as new (t: string, o: string, d: unknown) => { messages: FetchedMessage[] };
  const batch = new Batch('t', '6', { partition: 0, highWatermark: '17', abortedTransactions: aborted, messages: messages.map((m) => ({ ...m, isControlRecord: m.batchContext.isControlBatch })) });
  assert.deepEqual(producersOf(batch.messages), ['3', '3', '1']);
});
