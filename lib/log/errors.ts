// Error codes of the message log, shared by both backends (lib/log/embedded, lib/log/kafka), so that a
// caller handles "unknown topic" or "group still active" the same way whichever log is configured.
// Backend-specific codes (configuration, broker connection) live in the backend's own errors.ts.

/** A topic that was never created. */
export const LOG_UNKNOWN_TOPIC = 'FLOWAGG_ERR_LOG_UNKNOWN_TOPIC';
/** A partition number outside [0, partitions). */
export const LOG_PARTITION_OUT_OF_RANGE = 'FLOWAGG_ERR_LOG_PARTITION_OUT_OF_RANGE';
/** An argument that can never be valid: a bad topic name, a record whose value is not a Buffer... */
export const LOG_INVALID_ARGUMENT = 'FLOWAGG_ERR_LOG_INVALID_ARGUMENT';
/**
 * The log refuses the records themselves (Kafka: too large, invalid or corrupt): sending the same records
 * again cannot succeed, whatever happens to the log.
 */
export const LOG_RECORD_REJECTED = 'FLOWAGG_ERR_LOG_RECORD_REJECTED';
/** A record without a key sent to a compacted topic (compaction keeps the latest value per key). */
export const LOG_KEY_REQUIRED = 'FLOWAGG_ERR_LOG_KEY_REQUIRED';
/** resetGroupOffsets while the group has members (kafka-consumer-groups refuses the same way). */
export const LOG_GROUP_ACTIVE = 'FLOWAGG_ERR_LOG_GROUP_ACTIVE';
/** A transaction or transactional producer method called in a state that does not allow it. */
export const LOG_TXN_STATE = 'FLOWAGG_ERR_LOG_TXN_STATE';
/** A transactional producer replaced by a newer one with the same transactional id. */
export const LOG_PRODUCER_FENCED = 'FLOWAGG_ERR_LOG_PRODUCER_FENCED';
/** A consumer method called in a state that does not allow it (run twice, seek on an unassigned partition). */
export const LOG_CONSUMER_STATE = 'FLOWAGG_ERR_LOG_CONSUMER_STATE';
/** A remote consumer's batch fetched before its thread's last seek of the partition: refused, and read again from the seek. */
export const LOG_STALE_BATCH = 'FLOWAGG_ERR_LOG_STALE_BATCH';
/** Any use of a log, producer or consumer after close. */
export const LOG_CLOSED = 'FLOWAGG_ERR_LOG_CLOSED';
/** Embedded: another process holds the log directory's lock. */
export const LOG_LOCKED = 'FLOWAGG_ERR_LOG_LOCKED';
/** Embedded: the directory lock cannot be taken at all (flock(1) missing or failing). */
export const LOG_LOCK_UNAVAILABLE = 'FLOWAGG_ERR_LOG_LOCK_UNAVAILABLE';
/** Embedded: a closed segment that fails its checks (only the active segment may have a torn tail). */
export const LOG_CORRUPT = 'FLOWAGG_ERR_LOG_CORRUPT';
/** Embedded: a failed read, write or fsync; the partition refuses further appends. */
export const LOG_IO = 'FLOWAGG_ERR_LOG_IO';
/** The log API of the process holding an embedded log refused a request or could not be reached. */
export const LOG_API_FAILED = 'FLOWAGG_ERR_LOG_API_FAILED';
/** The schema registry refused a request (an incompatible schema, bad credentials) or could not be reached. */
export const LOG_SCHEMA_REGISTRY = 'FLOWAGG_ERR_LOG_SCHEMA_REGISTRY';
