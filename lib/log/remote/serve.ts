// The owner's side of a message log used from another thread (client.ts is the other side): every call
// of the client is made on the owner's log, so its transactions, read_committed, fencing and group
// rebalances are the owner log's own. What the client opened is remembered per handle, so that closing
// the port (the client's thread ended, or close()) stops its consumers, aborts its open transactions and
// closes the rest: a thread that died leaves no group member or transaction behind. The work a client
// can cause is what it awaits: each call is one call on the log, nothing is queued here.
import type { MessagePort } from 'node:worker_threads';
import { FlowaggError } from '../../errors.js';
import { Transferred } from '../../thread/calls.js';
import { type Peer, portPeer } from '../../thread/peer.js';
import { toWire } from '../../thread/wire-error.js';
import { LOG_CLOSED } from '../errors.js';
import type { Admin, Batch, Consumer, ConsumerConfig, FetchOptions, MessageLog, Producer, Reader, ReaderConfig, TopicPartition, TopicPartitionOffset, Transaction, TransactionalProducer } from '../types.js';
import { type PackedRecords, pack, transferOf, unpackProduceRecords } from './packing.js';
import { CLIENT, type Handle, OWNER, SeekCounts } from './protocol.js';
import { type PackedRun, unpackRun } from './packing-runs.js';

export interface ServedLog {
  close(): Promise<void>;
}

type Opened =
  | { readonly kind: 'producer'; readonly producer: Producer }
  | { readonly kind: 'transactional'; readonly producer: TransactionalProducer }
  | { readonly kind: 'transaction'; readonly txn: Transaction; readonly producer: Handle; done: boolean }
  | { readonly kind: 'consumer'; readonly consumer: Consumer; readonly seeks: SeekCounts }
  | { readonly kind: 'reader'; readonly reader: Reader };

const closedError = () => new FlowaggError(LOG_CLOSED, 'the thread using this log went away', { retriable: false });

export function serveLog(log: MessageLog, port: MessagePort): ServedLog {
  const opened = new Map<Handle, Opened>();
  let next = 1;
  const open = (o: Opened): Handle => (opened.set(next, o), next++);
  const get = <K extends Opened['kind']>(h: Handle, kind: K): Extract<Opened, { kind: K }> => {
    const o = opened.get(h);
    if (o?.kind !== kind) throw new FlowaggError(LOG_CLOSED, `no open ${kind} ${h} on this log (closed already)`);
    return o as Extract<Opened, { kind: K }>;
  };
  let released: Promise<void> | undefined;
  // Once the client is gone, its consumers leave the group without telling it (nobody would answer).
  let gone = false;
  const release = () => (released ??= (async () => {
    gone = true;
    peer.close();
    const all = [...opened.values()];
    opened.clear();
    // Consumers first (they leave the group once their batches in flight end), transactions before their producers.
    for (const o of all) if (o.kind === 'consumer') await o.consumer.stop().catch(() => undefined);
    for (const o of all) if (o.kind === 'transaction' && !o.done) await o.txn.abort().catch(() => undefined);
    for (const o of all) {
      if (o.kind === 'producer' || o.kind === 'transactional') await o.producer.close().catch(() => undefined);
      if (o.kind === 'reader') await o.reader.close().catch(() => undefined);
    }
  })());
  // A transaction is kept past its commit or abort (a second commit is the owner's to refuse) until its
  // producer begins the next one or closes: at most one per producer.
  const settle = (h: Handle, end: (txn: Transaction) => Promise<void>) => async () => {
    const o = get(h, 'transaction');
    await end(o.txn);
    o.done = true;
  };
  const forgetTransactionsOf = (producer: Handle) => {
    for (const [h, o] of opened) if (o.kind === 'transaction' && o.producer === producer) opened.delete(h);
  };
  const peer: Peer = portPeer(port, {
    [OWNER.producer]: () => open({ kind: 'producer', producer: log.producer() }),
    [OWNER.send]: (h: Handle, topic: string, packed: PackedRecords) => get(h, 'producer').producer.send(topic, unpackProduceRecords(packed)),
    [OWNER.sendRuns]: (h: Handle, topic: string, packed: PackedRun) => get(h, 'producer').producer.sendRuns(topic, [unpackRun(packed)]),
    [OWNER.closeProducer]: (h: Handle) => closeOpened(h),
    [OWNER.transactional]: (id: string) => open({ kind: 'transactional', producer: log.transactionalProducer(id) }),
    [OWNER.begin]: async (h: Handle) => {
      const txn = await get(h, 'transactional').producer.begin();
      forgetTransactionsOf(h);
      return open({ kind: 'transaction', txn, producer: h, done: false });
    },
    [OWNER.txnSend]: (h: Handle, topic: string, packed: PackedRecords) => get(h, 'transaction').txn.send(topic, unpackProduceRecords(packed)),
    [OWNER.sendOffsets]: (h: Handle, groupId: string, offsets: TopicPartitionOffset[]) => get(h, 'transaction').txn.sendOffsets(groupId, offsets),
    [OWNER.commit]: (h: Handle) => settle(h, (txn) => txn.commit())(),
    [OWNER.abort]: (h: Handle) => settle(h, (txn) => txn.abort())(),
    [OWNER.closeTransactional]: (h: Handle) => closeOpened(h),
    [OWNER.consumer]: (config: ConsumerConfig) => open({ kind: 'consumer', consumer: log.consumer(config), seeks: new SeekCounts() }),
    [OWNER.subscribe]: (h: Handle, topics: string[]) => get(h, 'consumer').consumer.subscribe(topics),
    [OWNER.run]: (h: Handle) => {
      const { consumer, seeks } = get(h, 'consumer');
      return consumer.run({
        eachBatch: (batch: Batch) => {
          const packed = pack(batch.records);
          return peer.call(CLIENT.batch, [h, { ...batch, records: packed, seeks: seeks.of(batch) }], transferOf(packed));
        },
        onAssign: (tps: readonly TopicPartition[]) => (gone ? undefined : peer.call(CLIENT.assign, [h, tps])),
        onRevoke: (tps: readonly TopicPartition[]) => (gone ? undefined : peer.call(CLIENT.revoke, [h, tps])),
        onFailure: (err: unknown) => void peer.call(CLIENT.failure, [h, toWire(err)]).catch(() => undefined),
      });
    },
    [OWNER.commitOffsets]: (h: Handle, offsets: TopicPartitionOffset[]) => get(h, 'consumer').consumer.commit(offsets),
    [OWNER.seek]: (h: Handle, target: TopicPartitionOffset) => {
      const o = get(h, 'consumer');
      // Counted as received, whether or not it applies: the count orders batches against seeks. Counted only
      // when applied, a seek kafkajs refused held every later batch of the partition stale for good (chaos
      // seed 427472); one the owner refuses moves nothing, so the batches after it are where they were.
      o.seeks.count(target);
      o.consumer.seek(target);
    },
    [OWNER.pause]: (h: Handle, tps: TopicPartition[]) => get(h, 'consumer').consumer.pause(tps),
    [OWNER.resume]: (h: Handle, tps: TopicPartition[]) => get(h, 'consumer').consumer.resume(tps),
    [OWNER.stop]: (h: Handle) => closeOpened(h),
    [OWNER.reader]: (config: ReaderConfig | undefined) => open({ kind: 'reader', reader: log.reader(config) }),
    [OWNER.fetch]: async (h: Handle, tp: TopicPartition, offset: number, opts: FetchOptions | undefined) => {
      const result = await get(h, 'reader').reader.fetch(tp, offset, opts);
      const packed = pack(result.records);
      return new Transferred({ ...result, records: packed }, transferOf(packed));
    },
    [OWNER.closeReader]: (h: Handle) => closeOpened(h),
    [OWNER.admin]: (method: keyof Admin, args: unknown[]) => (log.admin()[method] as (...a: unknown[]) => Promise<unknown>)(...args),
    [OWNER.close]: () => void setImmediate(() => void release()),
  }, closedError, () => void release());

  async function closeOpened(h: Handle): Promise<void> {
    const o = opened.get(h);
    opened.delete(h);
    forgetTransactionsOf(h);
    if (o?.kind === 'consumer') await o.consumer.stop();
    else if (o?.kind === 'producer' || o?.kind === 'transactional') await o.producer.close();
    else if (o?.kind === 'reader') await o.reader.close();
  }

  return { close: release };
}
