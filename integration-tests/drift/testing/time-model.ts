// The configuration every drift scenario runs `flowagg run` with, and the agent time the senders must go on
// for after the judged flows so that an event-time clock has passed every deadline of theirs.

export const ACTIVE_TIMEOUT_S = 5;
export const INACTIVE_TIMEOUT_S = 10;
/** How long a flow waiting for its peer, or an inactive flow, is kept for records arriving late (event time). */
export const ALLOWED_LATENESS_S = 60;
/**
 * The Agents' time runs ahead of the collector's while it is compressed (300 s of it in 15 s of wall time),
 * and an export time further ahead than processor.maxClockAhead is capped: this much is tolerated here.
 */
const MAX_CLOCK_AHEAD_S = 3600;
/** A source that sent nothing for this long (ingest's receive time, wall) no longer holds the clock back. */
export const SOURCE_IDLE_TIMEOUT_S = 5;
/** processor.correlationRetries and processor.exportDelay at their defaults. */
const CORRELATION_RETRIES = 2;
const EXPORT_DELAY_S = 1;

/**
 * Agent time past the last judged record by which every judged flow was given up or exported for the last
 * time: its inactive timeout, the lateness allowed, the retries of a waiting half, the export delay, and
 * some of each again as margin.
 */
export const SETTLE_AGENT_S = 2 * (INACTIVE_TIMEOUT_S + CORRELATION_RETRIES * ACTIVE_TIMEOUT_S + EXPORT_DELAY_S) + ALLOWED_LATENESS_S;

/**
 * Wall time after a half's creation by which its retries have passed in receive time too (the processor
 * waits them out in both times), with a margin: the senders go on this long after the judged flows.
 */
export const PEER_WAIT_WALL_S = CORRELATION_RETRIES * ACTIVE_TIMEOUT_S + 2 * EXPORT_DELAY_S;

/** Wall time the other Agents go on sending after one went away for good, so that it is seen idle. */
export const IDLE_WALL_S = 2 * SOURCE_IDLE_TIMEOUT_S;

/** A flowagg configuration file: Aggregate mode, free ports, no Kubernetes, the flow log as JSON lines in ./data. */
export function scenarioConfig(): string {
  return `mode: Aggregate
aggregatorTransportProtocol: [udp, tcp]
activeFlowRecordTimeout: ${ACTIVE_TIMEOUT_S}s
inactiveFlowRecordTimeout: ${INACTIVE_TIMEOUT_S}s
kubernetes:
  enable: false
ingest:
  port: 0
  grpc:
    port: 0
apiServer:
  apiPort: 0
flowLogger:
  enable: true
  path: data/flows.log
  recordFormat: JSON
processor:
  allowedLateness: ${ALLOWED_LATENESS_S}s
  sourceIdleTimeout: ${SOURCE_IDLE_TIMEOUT_S}s
  maxClockAhead: ${MAX_CLOCK_AHEAD_S}s
`;
}
