// Error codes of the FlowStreamService (FLOWAGG_ERR_FLOWSTREAM_*).

/** A FlowStreamService method called in a state that does not allow it (start twice, say). */
export const FLOWSTREAM_STATE = 'FLOWAGG_ERR_FLOWSTREAM_STATE';
