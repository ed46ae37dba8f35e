// Error codes of the processor (FLOWAGG_ERR_PROCESSOR_*).

/** A changelog record (processor.state) that does not decode, or state that contradicts itself. */
export const PROCESSOR_STATE_CORRUPT = 'FLOWAGG_ERR_PROCESSOR_STATE_CORRUPT';
/** A flow lifecycle transition the transition table does not allow (a bug, never input). */
export const PROCESSOR_FLOW_STATE = 'FLOWAGG_ERR_PROCESSOR_FLOW_STATE';
/** A processor method called in a state that does not allow it (start twice, stop before start). */
export const PROCESSOR_STATE = 'FLOWAGG_ERR_PROCESSOR_STATE';
/** An input record the processor cannot use (not a FlowRecord, no flow times); it is counted and skipped. */
export const PROCESSOR_BAD_RECORD = 'FLOWAGG_ERR_PROCESSOR_BAD_RECORD';
/** stop() could not commit what some partitions processed last: that input is processed again at the next start. */
export const PROCESSOR_FINAL_COMMIT = 'FLOWAGG_ERR_PROCESSOR_FINAL_COMMIT';
