// Transactions, Kafka's way. A transaction's records are appended at once as transactional batches
// (invisible to read_committed readers: the partition's last stable offset stays at the transaction's
// first offset). Commit:
//   1. a PrepareCommit record (partitions + offsets) is made durable in `__transaction_state-0`:
//      this is the commit point;
//   2. a COMMIT marker is appended to every partition written, and the offsets to `__consumer_offsets`;
//   3. CompleteCommit is recorded.
// Abort appends ABORT markers (readers skip the aborted batches) and records CompleteAbort.
// Recovery on open resolves every transaction still open in a partition: COMMIT if its PrepareCommit is
// durable (and applies its offsets again), ABORT otherwise. So a crash at any moment leaves a
// transaction entirely visible or entirely invisible.
import { FlowaggError } from '../../errors.js';
import { LOG_INVALID_ARGUMENT, LOG_PRODUCER_FENCED, LOG_TXN_STATE } from '../errors.js';
import type { ProduceRecord, TopicPartitionOffset, Transaction, TransactionalProducer } from '../types.js';
import { type BatchProducer, type ControlType, encodeControlBatch } from '../record-batch.js';
import { appendInternal, readAllInternal } from './internal-records.js';
import type { OffsetsStore } from './offsets-store.js';
import type { PartitionLog } from './partition-log.js';
import { appendRecords } from './producer.js';
import { StateMachine, type Transitions } from '../../service/state-machine.js';
import { type TopicRegistry, isInternalTopic } from './topics.js';

export const TXN_STATE_TOPIC = '__transaction_state';

interface GroupOffset extends TopicPartitionOffset {
  readonly groupId: string;
}

interface TxnStateRecord {
  readonly pid: number;
  readonly epoch: number;
  readonly state: 'Empty' | 'PrepareCommit' | 'CompleteCommit' | 'CompleteAbort';
  readonly partitions: readonly (readonly [string, number])[];
  readonly offsets: readonly GroupOffset[];
}

type TxnState = 'open' | 'committing' | 'committed' | 'aborting' | 'aborted';
const TXN_TRANSITIONS: Transitions<TxnState> = {
  open: ['committing', 'aborting'],
  committing: ['committed', 'aborting'],
  aborting: ['aborted'],
  committed: [],
  aborted: [],
};

type ProducerState = 'registering' | 'ready' | 'inTransaction' | 'fenced' | 'closed';
const PRODUCER_TRANSITIONS: Transitions<ProducerState> = {
  registering: ['ready', 'fenced', 'closed'],
  ready: ['inTransaction', 'fenced', 'closed'],
  inTransaction: ['ready', 'fenced', 'closed'],
  fenced: ['closed'],
  closed: [],
};

const partitionKey = (topic: string, partition: number): string => `${partition}\u0000${topic}`;

export class TransactionCoordinator {
  private readonly byId = new Map<string, TxnStateRecord>();
  private readonly live = new Map<string, EmbeddedTransactionalProducer>();
  private nextPid = 0;

  private constructor(
    private readonly stateLog: PartitionLog,
    readonly topics: TopicRegistry,
    readonly offsets: OffsetsStore,
  ) {}

  /** Loads the transaction state and resolves the transactions a crash left open. */
  static async open(stateLog: PartitionLog, topics: TopicRegistry, offsets: OffsetsStore): Promise<TransactionCoordinator> {
    const c = new TransactionCoordinator(stateLog, topics, offsets);
    await readAllInternal(stateLog, (r) => {
      const record = JSON.parse(r.value!.toString()) as TxnStateRecord;
      c.byId.set(r.key!.toString(), record);
      c.nextPid = Math.max(c.nextPid, record.pid + 1);
    });
    await c.recover();
    return c;
  }

  private async recover(): Promise<void> {
    const byPid = new Map([...this.byId].map(([id, r]) => [r.pid, { id, r }]));
    const markers: Promise<void>[] = [];
    for (const t of this.topics.all()) {
      if (isInternalTopic(t.config.topic)) continue;
      for (const log of t.partitions) {
        for (const pid of [...log.openTransactions().keys()]) {
          const entry = byPid.get(pid)?.r;
          const commit = entry?.state === 'PrepareCommit' && entry.partitions.some(([topic, p]) => topic === log.topic && p === log.partition);
          markers.push(appendMarker(log, commit ? 'commit' : 'abort', { producerId: pid, producerEpoch: entry?.epoch ?? 0, transactional: true }));
        }
      }
    }
    await Promise.all(markers);
    for (const [id, r] of this.byId) {
      if (r.state !== 'PrepareCommit') continue;
      await this.commitOffsets(r.offsets);
      await this.persist(id, { ...r, state: 'CompleteCommit', partitions: [], offsets: [] });
    }
  }

  private async persist(transactionalId: string, record: TxnStateRecord): Promise<void> {
    await appendInternal(this.stateLog, [{ key: Buffer.from(transactionalId), value: Buffer.from(JSON.stringify(record)) }]);
    this.byId.set(transactionalId, record);
  }

  private async commitOffsets(offsets: readonly GroupOffset[]): Promise<void> {
    const byGroup = new Map<string, TopicPartitionOffset[]>();
    for (const o of offsets) byGroup.set(o.groupId, [...(byGroup.get(o.groupId) ?? []), { topic: o.topic, partition: o.partition, offset: o.offset }]);
    await Promise.all([...byGroup].map(([groupId, list]) => this.offsets.commit(groupId, list)));
  }

  /** Gives the producer its id and a new epoch, fencing (and aborting the transaction of) any older one. */
  async register(producer: EmbeddedTransactionalProducer): Promise<BatchProducer> {
    const id = producer.transactionalId;
    const older = this.live.get(id);
    this.live.set(id, producer);
    if (older !== undefined && older !== producer) await older.fence();
    const previous = this.byId.get(id);
    const reuse = previous !== undefined && previous.epoch < 32_767;
    const pid = reuse ? previous.pid : this.nextPid++;
    const epoch = reuse ? previous.epoch + 1 : 0;
    await this.persist(id, { pid, epoch, state: 'Empty', partitions: [], offsets: [] });
    return { producerId: pid, producerEpoch: epoch, transactional: true };
  }

  unregister(producer: EmbeddedTransactionalProducer): void {
    if (this.live.get(producer.transactionalId) === producer) this.live.delete(producer.transactionalId);
  }

  async commit(id: string, producer: BatchProducer, partitions: readonly PartitionLog[], offsets: readonly GroupOffset[]): Promise<void> {
    if (partitions.length === 0 && offsets.length === 0) return;
    await this.persist(id, {
      pid: producer.producerId,
      epoch: producer.producerEpoch,
      state: 'PrepareCommit',
      partitions: partitions.map((p) => [p.topic, p.partition] as const),
      offsets,
    });
    await Promise.all([...partitions.map((p) => appendMarker(p, 'commit', producer)), this.commitOffsets(offsets)]);
    await this.persist(id, { pid: producer.producerId, epoch: producer.producerEpoch, state: 'CompleteCommit', partitions: [], offsets: [] });
  }

  async abort(id: string, producer: BatchProducer, partitions: readonly PartitionLog[]): Promise<void> {
    if (partitions.length === 0) return;
    await Promise.all(partitions.map((p) => appendMarker(p, 'abort', producer)));
    await this.persist(id, { pid: producer.producerId, epoch: producer.producerEpoch, state: 'CompleteAbort', partitions: [], offsets: [] });
  }
}

function appendMarker(log: PartitionLog, type: ControlType, producer: BatchProducer): Promise<void> {
  return log.append(encodeControlBatch(type, producer, Date.now()), { producerId: producer.producerId, transactional: true, control: type, recordsCount: 1 }).acknowledged;
}

export class EmbeddedTransactionalProducer implements TransactionalProducer {
  private readonly machine: StateMachine<ProducerState>;
  private readonly registered: Promise<BatchProducer>;
  private current: EmbeddedTransaction | null = null;

  constructor(
    readonly transactionalId: string,
    private readonly coordinator: TransactionCoordinator,
    private readonly onClosed: () => void = () => {},
  ) {
    if (typeof transactionalId !== 'string' || transactionalId === '') {
      throw new FlowaggError(LOG_INVALID_ARGUMENT, 'a transactional id is a non-empty string', { context: { transactionalId: String(transactionalId) } });
    }
    this.machine = new StateMachine('TransactionalProducer', PRODUCER_TRANSITIONS, 'registering', LOG_TXN_STATE, { transactionalId });
    this.registered = coordinator.register(this).then((p) => {
      if (this.machine.is('registering')) this.machine.to('ready');
      return p;
    });
    this.registered.catch(() => {});
  }

  async begin(): Promise<Transaction> {
    const producer = await this.registered;
    this.checkFenced('begin');
    this.machine.guard('begin', ['ready']);
    this.machine.to('inTransaction');
    this.current = new EmbeddedTransaction(this, producer, this.coordinator);
    return this.current;
  }

  checkFenced(method: string): void {
    if (this.machine.is('fenced')) {
      throw new FlowaggError(LOG_PRODUCER_FENCED, `${method}(): transactional producer "${this.transactionalId}" was fenced by a newer producer with the same id`, {
        context: { transactionalId: this.transactionalId, method },
      });
    }
  }

  /** Called by a transaction once it committed or aborted. */
  ended(txn: EmbeddedTransaction): void {
    if (this.current !== txn) return;
    this.current = null;
    if (this.machine.is('inTransaction')) this.machine.to('ready');
  }

  /** A newer producer took the id: abort the open transaction (a commit under way completes first). */
  async fence(): Promise<void> {
    const txn = this.current;
    if (!this.machine.is('closed')) this.machine.to('fenced');
    await txn?.abandon();
  }

  async close(): Promise<void> {
    if (this.machine.is('closed')) return;
    const txn = this.current;
    this.machine.to('closed');
    await txn?.abandon();
    this.coordinator.unregister(this);
    this.onClosed();
  }
}

class EmbeddedTransaction implements Transaction {
  private readonly machine: StateMachine<TxnState>;
  private readonly partitions = new Map<string, PartitionLog>();
  private readonly offsets = new Map<string, GroupOffset>();
  private readonly sends: Promise<void>[] = [];
  private ending: Promise<void> | null = null;

  constructor(
    private readonly owner: EmbeddedTransactionalProducer,
    private readonly producer: BatchProducer,
    private readonly coordinator: TransactionCoordinator,
  ) {
    this.machine = new StateMachine('Transaction', TXN_TRANSITIONS, 'open', LOG_TXN_STATE, { transactionalId: owner.transactionalId });
  }

  async send(topic: string, records: readonly ProduceRecord[]): Promise<void> {
    this.owner.checkFenced('send');
    this.machine.guard('send', ['open']);
    const result = appendRecords(this.coordinator.topics, topic, records, this.producer, false);
    for (const p of result.partitions) this.partitions.set(partitionKey(p.topic, p.partition), p);
    this.sends.push(result.acknowledged);
    await result.acknowledged;
  }

  async sendOffsets(groupId: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    this.owner.checkFenced('sendOffsets');
    this.machine.guard('sendOffsets', ['open']);
    if (typeof groupId !== 'string' || groupId === '') throw new FlowaggError(LOG_INVALID_ARGUMENT, 'sendOffsets: groupId is a non-empty string');
    for (const o of offsets) {
      this.coordinator.topics.partition(o.topic, o.partition);
      if (!Number.isSafeInteger(o.offset) || o.offset < 0) {
        throw new FlowaggError(LOG_INVALID_ARGUMENT, `sendOffsets: offset ${o.offset} of ${o.topic}-${o.partition} is not a non-negative integer`, { context: { ...o } });
      }
      this.offsets.set(`${groupId}\u0000${partitionKey(o.topic, o.partition)}`, { groupId, topic: o.topic, partition: o.partition, offset: o.offset });
    }
  }

  async commit(): Promise<void> {
    this.owner.checkFenced('commit');
    this.machine.guard('commit', ['open']);
    this.machine.to('committing');
    this.ending = this.complete('commit');
    await this.ending;
  }

  async abort(): Promise<void> {
    this.owner.checkFenced('abort');
    this.machine.guard('abort', ['open']);
    this.machine.to('aborting');
    this.ending = this.complete('abort');
    await this.ending;
  }

  /** Waits for the sends, then commits (when asked and every send succeeded) or aborts. */
  private async complete(outcome: 'commit' | 'abort'): Promise<void> {
    try {
      const failed = (await Promise.allSettled(this.sends)).find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (outcome === 'commit' && failed === undefined) {
        await this.coordinator.commit(this.owner.transactionalId, this.producer, [...this.partitions.values()], [...this.offsets.values()]);
        this.machine.to('committed');
        return;
      }
      if (this.machine.is('committing')) this.machine.to('aborting');
      await this.coordinator.abort(this.owner.transactionalId, this.producer, [...this.partitions.values()]);
      this.machine.to('aborted');
      if (outcome === 'commit') {
        throw new FlowaggError(LOG_TXN_STATE, `transaction of "${this.owner.transactionalId}" was aborted: a send failed`, { cause: failed?.reason });
      }
    } finally {
      this.owner.ended(this);
    }
  }

  /** Its producer was fenced or closed: abort if still open, else let the commit or abort under way finish. */
  async abandon(): Promise<void> {
    if (this.machine.is('open')) {
      this.machine.to('aborting');
      this.ending = this.complete('abort');
    }
    await this.ending?.catch(() => {});
  }
}
