// The configuration every drift scenario runs `flowagg run` with, and the agent time the senders must go on
// for after the judged flows so that an event-time clock has passed every deadline of theirs.
// Issue 15's time model adds `processor.allowedLateness` and `processor.sourceIdleTimeout`: they are set
// when WITH_TIME_MODEL_KEYS is true. Today's main ignores unknown keys with a warning, so the same
// configuration runs on both; false leaves them out (main exactly as configured before the change).
export const WITH_TIME_MODEL_KEYS = true;

export const ACTIVE_TIMEOUT_S = 5;
export const INACTIVE_TIMEOUT_S = 10;
/** How long a flow waiting for its peer, or an inactive flow, is kept for records arriving late (event time). */
export const ALLOWED_LATENESS_S = 60;
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
export const SETTLE_AGENT_S = 2 * (INACTIVE_TIMEOUT_S + CORRELATION_RETRIES * ACTIVE_TIMEOUT_S + EXPORT_DELAY_S) + (WITH_TIME_MODEL_KEYS ? ALLOWED_LATENESS_S : 0);

/** Wall time the other Agents go on sending after one went away for good, so that it is seen idle. */
export const IDLE_WALL_S = 2 * SOURCE_IDLE_TIMEOUT_S;

/** A flowagg configuration file: Aggregate mode, free ports, no Kubernetes, the flow log as JSON lines in ./data. */
export function scenarioConfig(): string {
  const timeModel = WITH_TIME_MODEL_KEYS ? `  allowedLateness: ${ALLOWED_LATENESS_S}s\n  sourceIdleTimeout: ${SOURCE_IDLE_TIMEOUT_S}s\n` : '';
  return `mode: Aggregate
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
${timeModel === '' ? '' : `processor:\n${timeModel}`}`;
}
