// A MessageLog whose consumers can be made to die, as a Kafka consumer that crashed and will not rejoin
// does (ConsumerHandlers.onFailure), and whose consumers' handlers a test can call itself (a batch the
// log would never deliver): for tests of supervision. Everything else goes to the wrapped log.
import { FlowaggError } from '../../errors.js';
import type { ConsumerHandlers, MessageLog } from '../types.js';

export const INJECTED_CONSUMER_CRASH = 'FLOWAGG_ERR_TEST_INJECTED_CONSUMER_CRASH';

export interface CrashingLog extends MessageLog {
  /** Stops every running consumer of the groups named `prefix…` and reports it to their owners; the number crashed. */
  crash(prefix: string): Promise<number>;
  /** The handlers of the running consumers of the group. */
  handlersOf(groupId: string): ConsumerHandlers[];
}

export function crashingConsumers(log: MessageLog): CrashingLog {
  const running = new Map<string, Set<{ stop(): Promise<void>; handlers: ConsumerHandlers }>>();
  return {
    backend: log.backend,
    async crash(prefix) {
      let crashed = 0;
      for (const [groupId, consumers] of [...running].filter(([g]) => g.startsWith(prefix))) {
        running.delete(groupId);
        for (const c of consumers) {
          await c.stop();
          c.handlers.onFailure?.(new FlowaggError(INJECTED_CONSUMER_CRASH, `the consumer of group ${groupId} crashed (injected)`, { context: { groupId } }));
          crashed++;
        }
      }
      return crashed;
    },
    handlersOf: (groupId) => [...(running.get(groupId) ?? [])].map((c) => c.handlers),
    consumer(config) {
      const consumer = log.consumer(config);
      return {
        subscribe: (topics) => consumer.subscribe(topics),
        async run(handlers) {
          await consumer.run(handlers);
          const group = running.get(config.groupId) ?? new Set();
          group.add({ stop: () => consumer.stop(), handlers });
          running.set(config.groupId, group);
        },
        commit: (offsets) => consumer.commit(offsets),
        seek: (target) => consumer.seek(target),
        pause: (partitions) => consumer.pause(partitions),
        resume: (partitions) => consumer.resume(partitions),
        assignment: () => consumer.assignment(),
        stop: () => consumer.stop(),
      };
    },
    producer: () => log.producer(),
    transactionalProducer: (id) => log.transactionalProducer(id),
    reader: (config) => log.reader(config),
    admin: () => log.admin(),
    close: () => log.close(),
  };
}
