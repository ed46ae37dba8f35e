// A Kafka broker for the functional tests and benchmarks, from the first source that works:
//   1. KAFKA_BROKERS from the environment (a broker someone already runs);
//   2. Testcontainers, when a container runtime answers: the locally built flowagg/kafka image
//      (infra/images/kafka), the same broker and version as the local launcher;
//   3. the local launcher infra/dev/kafka (Apache Kafka from Maven Central, run with the machine's Java).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { containerRuntimeAnswers } from './containers.js';
import { startDevLauncher } from './dev-launcher.js';
import { startKafkaContainer } from './kafka-container.js';

export interface KafkaBroker {
  /** Bootstrap list, host:port[,host:port...]. */
  readonly brokers: string;
  readonly source: 'env' | 'testcontainers' | 'local';
  /** A listener that requires SASL (user flowagg, password flowagg-secret), when the broker has one. */
  readonly saslBrokers?: string;
  stop(): Promise<void>;
}

/** The credentials of the SASL listener of infra/dev/kafka (the local launcher and the image). */
export const LOCAL_SASL = { username: 'flowagg', password: 'flowagg-secret' } as const;

async function fromTestcontainers(log: (line: string) => void): Promise<KafkaBroker | undefined> {
  if (!(await containerRuntimeAnswers())) {
    log('no container runtime answers; not using Testcontainers');
    return undefined;
  }
  const container = await startKafkaContainer(log);
  return { brokers: container.brokers, saslBrokers: container.saslBrokers, source: 'testcontainers', stop: container.stop };
}

/** A broker that its test may kill and bring back: the whole of the chaos tests' broker. */
export interface RestartableKafka extends KafkaBroker {
  /** The broker's log directories, one per topic-partition. */
  readonly dataDir: string;
  /** SIGKILL to the broker's JVM. */
  kill(): void;
  /** SIGSTOP to the broker's JVM (it answers nothing, and closes nothing) until continued. */
  stall(): void;
  /** SIGCONT after stall(). */
  continue(): void;
  /** Starts the killed broker again on its ports and its data, resolving once it answers. */
  resume(): Promise<void>;
}

/**
 * A broker of the caller's own from the local launcher, which can bring a killed broker back on its data
 * (`infra/dev/kafka resume`). Not from Testcontainers: the image formats a fresh log at every start.
 */
export async function startRestartableKafka(log: (line: string) => void): Promise<RestartableKafka> {
  const broker = await startDevLauncher({ name: 'kafka', stateVariable: 'FLOWAGG_KAFKA_STATE', pidFiles: ['kafka.pid'] }, log);
  return {
    brokers: broker.address,
    saslBrokers: (await readFile(join(broker.state, 'bootstrap-sasl'), 'utf8')).trim(),
    source: 'local',
    dataDir: join(broker.state, 'data'),
    stop: broker.stop,
    kill: () => broker.signal('SIGKILL'),
    stall: () => broker.signal('SIGSTOP'),
    continue: () => broker.signal('SIGCONT'),
    resume: async () => void (await broker.command('resume')),
  };
}

export async function startKafka(log: (line: string) => void): Promise<KafkaBroker> {
  const fromEnv = process.env.KAFKA_BROKERS?.trim();
  if (fromEnv) return { brokers: fromEnv, source: 'env', stop: async () => {} };
  const failures: string[] = [];
  for (const source of [fromTestcontainers, startRestartableKafka]) {
    try {
      const broker = await source(log);
      if (broker !== undefined) return broker;
    } catch (err) {
      failures.push((err as Error).message);
      log((err as Error).message);
    }
  }
  const where = process.env.CI === 'true' ? 'CI needs a Kafka broker for the functional tests' : 'the functional tests need a Kafka broker';
  throw new Error(
    `${where}, and none could be had: no KAFKA_BROKERS, no container runtime, and the local launcher failed` +
      ` (it needs Java 17+ and Maven; .ci/run installs them).\n${failures.join('\n')}\n` +
      'Set KAFKA_BROKERS=host:port to use a running broker, or run only the unit tests with `npm run test:unit`.',
  );
}

/**
 * The broker list a functional test runs against (scripts/test.ts sets KAFKA_BROKERS for the whole run).
 * Without one, a test is skipped with the reason, except in CI, where that is a failure: CI never passes by skipping.
 */
export function kafkaBrokersForTests(): { brokers: string; skip: false } | { brokers: undefined; skip: string } {
  const brokers = process.env.KAFKA_BROKERS?.trim();
  if (brokers) return { brokers, skip: false };
  if (process.env.CI === 'true') throw new Error('KAFKA_BROKERS is not set in CI: run the functional tests through `npm test`, which starts a broker');
  return { brokers: undefined, skip: 'KAFKA_BROKERS is not set (`npm test` starts a broker; or KAFKA_BROKERS=$(infra/dev/kafka start))' };
}
