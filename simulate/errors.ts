// Error codes of `flowagg simulate` (FLOWAGG_ERR_SIMULATE_*).

/** A Node could not connect to the collector before the connect timeout, at start. */
export const SIMULATE_CONNECT = 'FLOWAGG_ERR_SIMULATE_CONNECT';
/** The TLS material (CA, client certificate and key) cannot be read. */
export const SIMULATE_TLS_FILES = 'FLOWAGG_ERR_SIMULATE_TLS_FILES';
/** A run that ended with records lost in transit or Nodes not connected. */
export const SIMULATE_INCOMPLETE = 'FLOWAGG_ERR_SIMULATE_INCOMPLETE';
