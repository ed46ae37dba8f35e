// A MessageLog that makes one transaction commit fail, for fault-injection tests of the processor: the
// Nth commit of each transactional id throws a retriable error instead of committing, as a transaction
// coordinator that is not available would. Commits are counted per transactional id (one per input
// partition), over every producer opened with it, so a rebuilt task's producer counts on and fails
// nothing more; the count does not depend on how the partitions' commits interleave. The caller aborts
// the transaction, as it must after any failed commit. Everything else goes to the wrapped log unchanged.
import { FlowaggError } from '../../lib/errors.js';
import { type MessageLog, type Transaction } from '../../lib/log/types.js';

export const INJECTED_COMMIT_FAILURE = 'FLOWAGG_ERR_TEST_INJECTED_COMMIT_FAILURE';

export interface FailingLog extends MessageLog {
  /** Commits failed so far, over every transactional id. */
  readonly failedCommits: number;
}

export function failingNthCommit(log: MessageLog, n: number): FailingLog {
  const attempts = new Map<string, number>();
  let failedCommits = 0;
  const failing = (transactionalId: string, txn: Transaction): Transaction => ({
    send: (topic, records) => txn.send(topic, records),
    sendOffsets: (groupId, offsets) => txn.sendOffsets(groupId, offsets),
    abort: () => txn.abort(),
    async commit() {
      const attempt = (attempts.get(transactionalId) ?? 0) + 1;
      attempts.set(transactionalId, attempt);
      if (attempt !== n) return txn.commit();
      failedCommits++;
      throw new FlowaggError(INJECTED_COMMIT_FAILURE, `commit ${n} of ${transactionalId} failed (injected)`, { retriable: true, context: { transactionalId, commit: n } });
    },
  });
  return {
    backend: log.backend,
    get failedCommits() {
      return failedCommits;
    },
    producer: () => log.producer(),
    transactionalProducer(transactionalId) {
      const producer = log.transactionalProducer(transactionalId);
      return { transactionalId, begin: async () => failing(transactionalId, await producer.begin()), close: () => producer.close() };
    },
    consumer: (config) => log.consumer(config),
    reader: (config) => log.reader(config),
    admin: () => log.admin(),
    close: () => log.close(),
  };
}
