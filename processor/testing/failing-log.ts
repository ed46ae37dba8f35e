// A MessageLog that makes one transaction commit fail, for fault-injection tests of the processor: the
// Nth commit of each transactional id throws instead of committing: a retriable error, as a transaction
// coordinator that is not available would, or (`fenced`) the error of a producer fenced by a newer one with
// its transactional id, as when another instance opened the partition for a moment while the group
// rebalanced, after which the partition stays assigned here. Commits are counted per transactional id (one per input
// partition), over every producer opened with it, so a rebuilt task's producer counts on and fails
// nothing more; the count does not depend on how the partitions' commits interleave. The caller aborts
// the transaction, as it must after any failed commit. Everything else goes to the wrapped log unchanged.
import { FlowaggError } from '../../lib/errors.js';
import { LOG_PRODUCER_FENCED } from '../../lib/log/errors.js';
import type { MessageLog, Transaction } from '../../lib/log/types.js';

export const INJECTED_COMMIT_FAILURE = 'FLOWAGG_ERR_TEST_INJECTED_COMMIT_FAILURE';

export interface FailingLog extends MessageLog {
  /** Commits failed so far, over every transactional id. */
  readonly failedCommits: number;
}

export function failingNthCommit(log: MessageLog, n: number, failure: 'unavailable' | 'fenced' = 'unavailable'): FailingLog {
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
      if (failure === 'fenced') throw new FlowaggError(LOG_PRODUCER_FENCED, `commit ${n} of ${transactionalId}: fenced by a newer producer (injected)`, { context: { transactionalId, commit: n } });
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
