// Error codes of the flow explorer (FLOWAGG_ERR_EXPLORER_*).

/** An explorer method called in a state that does not allow it (start twice, say). */
export const EXPLORER_STATE = 'FLOWAGG_ERR_EXPLORER_STATE';
