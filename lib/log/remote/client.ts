// A message log in a worker thread that is the owner thread's log (serve.ts): every call goes over the
// port and is made there. Handles are answered by the owner, so a producer or a consumer made here
// (synchronously, as the log's types make them) sends its calls once its handle is known; calls that
// return nothing (seek, pause, resume) are posted in order behind it, as the port keeps order.
import type { MessagePort } from 'node:worker_threads';
import { FlowaggError } from '../../errors.js';
import { type Peer, portPeer } from '../../thread/peer.js';
import { LOG_CLOSED } from '../errors.js';
import type { Admin, FetchResult, MessageLog, ProduceRecord, Producer, Reader, RecordMetadata, Transaction, TransactionalProducer } from '../types.js';
import { RemoteConsumers } from './client-consumer.js';
import { checkRuns } from '../record-runs.js';
import { packRuns, transferOfRun } from './packing-runs.js';
import { type PackedRecords, pack, transferOf, unpackLogRecords } from './packing.js';
import { CLIENT, type Handle, OWNER } from './protocol.js';

const ADMIN_METHODS = ['createTopics', 'listTopics', 'fetchTopicOffsets', 'fetchOffsetsByTimestamp', 'listGroups', 'fetchGroupLag', 'resetGroupOffsets'] as const satisfies readonly (keyof Admin)[];

export function remoteLog(port: MessagePort, backend: MessageLog['backend']): MessageLog {
  let closing: Error | undefined;
  const closedError = () => closing ?? new FlowaggError(LOG_CLOSED, 'the log owner\'s thread closed the port (it stopped or went away)');
  const consumers = new RemoteConsumers((method, args) => peer.call(method, args));
  const peer: Peer = portPeer(port, {
    [CLIENT.batch]: consumers.batch,
    [CLIENT.assign]: consumers.assign,
    [CLIENT.revoke]: consumers.revoke,
    [CLIENT.failure]: consumers.failure,
  }, closedError);
  const call = <T>(method: string, ...args: unknown[]) => peer.call<T>(method, args);
  /** Packed records move to the owner's thread: they are copied once, into the buffer. */
  const sendPacked = <T>(method: string, h: Handle, topic: string, records: readonly ProduceRecord[]) => {
    const packed = pack(records);
    return peer.call<T>(method, [h, topic, packed], transferOf(packed));
  };
  return {
    backend,
    producer(): Producer {
      const handle = call<Handle>(OWNER.producer);
      return {
        send: async (topic, records) => sendPacked<RecordMetadata[]>(OWNER.send, await handle, topic, records),
        sendRuns: async (topic, runs) => {
          checkRuns(topic, runs);
          const packed = packRuns(runs);
          await peer.call<void>(OWNER.sendRuns, [await handle, topic, packed], transferOfRun(packed));
        },
        close: async () => call(OWNER.closeProducer, await handle),
      };
    },
    transactionalProducer(transactionalId): TransactionalProducer {
      const handle = call<Handle>(OWNER.transactional, transactionalId);
      return {
        transactionalId,
        begin: async (): Promise<Transaction> => {
          const txn = await call<Handle>(OWNER.begin, await handle);
          return {
            send: (topic, records) => sendPacked<void>(OWNER.txnSend, txn, topic, records),
            sendOffsets: (groupId, offsets) => call(OWNER.sendOffsets, txn, groupId, offsets),
            commit: () => call(OWNER.commit, txn),
            abort: () => call(OWNER.abort, txn),
          };
        },
        close: async () => call(OWNER.closeTransactional, await handle),
      };
    },
    consumer: (config) => consumers.open(config),
    reader(config): Reader {
      const handle = call<Handle>(OWNER.reader, config);
      return {
        fetch: async (tp, offset, opts) => {
          const result = await call<Omit<FetchResult, 'records'> & { records: PackedRecords }>(OWNER.fetch, await handle, tp, offset, opts);
          return { ...result, records: unpackLogRecords(result.records) };
        },
        close: async () => call(OWNER.closeReader, await handle),
      };
    },
    admin: () => Object.fromEntries(ADMIN_METHODS.map((m) => [m, (...args: unknown[]) => call(OWNER.admin, m, args)])) as unknown as Admin,
    async close() {
      if (closing !== undefined) return;
      // An owner gone already has closed what this client opened: closing is done either way.
      await call(OWNER.close).catch(() => undefined);
      closing = new FlowaggError(LOG_CLOSED, 'this log was closed');
      peer.close();
    },
  };
}
