// Kafka backend error codes, and the translation of kafkajs errors into FlowaggErrors that say what was
// being done, on which topic and partition, what the broker answered, and whether retrying can help.
import { FlowaggError, type ErrorContext } from '../../errors.js';
import { LOG_PRODUCER_FENCED, LOG_RECORD_REJECTED, LOG_UNKNOWN_TOPIC } from '../errors.js';

/** The `log.kafka` configuration cannot be used (a TLS file cannot be read). */
export const KAFKA_CONFIG = 'FLOWAGG_ERR_LOG_KAFKA_CONFIG';
/** No broker could be reached, or the connection failed (retriable). */
export const KAFKA_UNREACHABLE = 'FLOWAGG_ERR_LOG_KAFKA_UNREACHABLE';
/** SASL authentication failed: wrong mechanism, user or password (not retriable). */
export const KAFKA_AUTH = 'FLOWAGG_ERR_LOG_KAFKA_AUTH';
/** The broker refused a request; `context.brokerError` holds Kafka's error name. */
export const KAFKA_BROKER = 'FLOWAGG_ERR_LOG_KAFKA_BROKER';

/** Kafka's error names that mean another producer took over this transactional id. */
const FENCING_ERRORS = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED', 'INVALID_PRODUCER_ID_MAPPING']);

/** Kafka's error names that are about the records sent, not about the broker's state. */
const RECORD_ERRORS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE', 'INVALID_TIMESTAMP']);

const UNREACHABLE_ERRORS = new Set(['KafkaJSConnectionError', 'KafkaJSConnectionClosedError', 'KafkaJSBrokerNotFound', 'KafkaJSNoBrokerAvailableError']);

interface KafkajsErrorShape {
  name?: string;
  message?: string;
  retriable?: boolean;
  type?: string;
  cause?: unknown;
}

/**
 * kafkajs wraps the error it gave up on (KafkaJSNumberOfRetriesExceeded, KafkaJSNonRetriableError with a
 * cause); the innermost one says what the broker or the network did.
 */
function rootCause(err: KafkajsErrorShape): KafkajsErrorShape {
  let e = err;
  for (let depth = 0; depth < 5 && typeof e.cause === 'object' && e.cause !== null; depth++) e = e.cause as KafkajsErrorShape;
  return e;
}

/**
 * A FlowaggError for a failed kafkajs call, with the shared log codes where one fits (fenced producer,
 * unknown topic). Retriable when kafkajs says the root cause is (kafkajs already retried it).
 */
export function kafkaError(err: unknown, doing: string, context: ErrorContext = {}): FlowaggError {
  if (err instanceof FlowaggError) return err;
  const outer = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as KafkajsErrorShape;
  const root = rootCause(outer);
  const brokerError = root.type;
  const retriable = outer.name === 'KafkaJSNumberOfRetriesExceeded' ? root.retriable === true : outer.retriable === true;
  const detail = root.message ?? outer.message ?? 'unknown error';
  if (brokerError !== undefined && FENCING_ERRORS.has(brokerError)) {
    return new FlowaggError(LOG_PRODUCER_FENCED, `${doing}: fenced by a newer producer with the same transactional id (${brokerError})`, {
      context: { ...context, brokerError },
      cause: err,
    });
  }
  if (brokerError === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return new FlowaggError(LOG_UNKNOWN_TOPIC, `${doing}: the topic or partition does not exist`, { context: { ...context, brokerError }, cause: err });
  }
  if (brokerError !== undefined && RECORD_ERRORS.has(brokerError)) {
    return new FlowaggError(LOG_RECORD_REJECTED, `${doing}: the broker refuses these records (${brokerError})`, { context: { ...context, brokerError }, cause: err });
  }
  if (root.name === 'KafkaJSSASLAuthenticationError' || outer.name === 'KafkaJSSASLAuthenticationError') {
    return new FlowaggError(KAFKA_AUTH, `${doing}: ${detail} (check log.kafka.sasl)`, { context, cause: err });
  }
  const unreachable = UNREACHABLE_ERRORS.has(root.name ?? '') || UNREACHABLE_ERRORS.has(outer.name ?? '');
  if (unreachable) {
    return new FlowaggError(KAFKA_UNREACHABLE, `${doing}: cannot reach the Kafka brokers: ${detail}`, { context, retriable: true, cause: err });
  }
  const named = brokerError === undefined ? detail : `${detail} (${brokerError})`;
  return new FlowaggError(KAFKA_BROKER, `${doing}: ${named}`, {
    context: brokerError === undefined ? context : { ...context, brokerError },
    retriable,
    cause: err,
  });
}

/** Runs a kafkajs call and translates what it throws. */
export async function kafkaCall<T>(doing: string, context: ErrorContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw kafkaError(err, doing, context);
  }
}
