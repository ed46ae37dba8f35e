// The flowagg/kafka image (infra/images/kafka: the broker of infra/dev/kafka) under Testcontainers.
import { until } from '../../lib/testing/until.js';
import { type OnNetwork, hostOf, localContainer } from './containers.js';

export interface KafkaContainer {
  /** From the host: the published PLAINTEXT and SASL_PLAINTEXT listeners. */
  readonly brokers: string;
  readonly saslBrokers: string;
  /** From containers on `network`: the BROKER listener under the network alias. */
  readonly networkBrokers: string | undefined;
  stop(): Promise<void>;
}

/**
 * The flowagg/kafka image under Testcontainers. Its entrypoint waits for the file of advertised addresses,
 * since a published port is known only once the container runs; the broker is ready when it answers
 * Metadata with itself in it, as the local launcher's probe asks.
 */
export async function startKafkaContainer(log: (line: string) => void, network?: OnNetwork): Promise<KafkaContainer> {
  const { container: definition, Wait, image } = await localContainer('kafka', log, network);
  const advertisedFile = '/tmp/advertised.env';
  definition
    .withExposedPorts(9092, 9094)
    .withEnvironment({ FLOWAGG_KAFKA_WAIT_FOR: advertisedFile, ...(network && { FLOWAGG_KAFKA_BROKER_ADVERTISED: `${network.alias}:19092` }) })
    .withWaitStrategy(Wait.forLogMessage(`waiting for ${advertisedFile}`));
  log(`starting ${image} with Testcontainers`);
  const container = await definition.start();
  const host = hostOf(container);
  const brokers = `${host}:${container.getMappedPort(9092)}`;
  const saslBrokers = `${host}:${container.getMappedPort(9094)}`;
  const env = `FLOWAGG_KAFKA_ADVERTISED=${brokers}\nFLOWAGG_KAFKA_SASL_ADVERTISED=${saslBrokers}\n`;
  const written = await container.exec(['sh', '-c', `printf '${env}' >${advertisedFile}.tmp && mv ${advertisedFile}.tmp ${advertisedFile}`]);
  if (written.exitCode !== 0) throw new Error(`could not hand the advertised addresses to the Kafka container: ${written.output}`);
  try {
    await waitForBroker(brokers, 120_000);
  } catch (err) {
    const logs = await container.logs({ tail: 40 }).then(streamText, () => '');
    await container.stop();
    throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
  }
  return { brokers, saslBrokers, networkBrokers: network && `${network.alias}:19092`, stop: async () => void (await container.stop()) };
}

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/** Until the broker answers Metadata with at least one broker, within `timeoutMs`. */
async function waitForBroker(brokers: string, timeoutMs: number): Promise<void> {
  const { Kafka, logLevel } = (await import('kafkajs')).default;
  const answers = async () => {
    const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      return (await admin.describeCluster()).brokers.length > 0;
    } finally {
      await admin.disconnect().catch(() => {});
    }
  };
  await until(`the Kafka container at ${brokers} to answer`, answers, { timeoutMs, intervalMs: 500 });
}
