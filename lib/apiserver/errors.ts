// Error codes of the API server (FLOWAGG_ERR_API_*).

/** The loopback token file cannot be written (its directory cannot be made, no permission). */
export const API_TOKEN_FILE = 'FLOWAGG_ERR_API_TOKEN_FILE';
/** The API server cannot listen (port in use, no permission, an address not on this machine). */
export const API_LISTEN = 'FLOWAGG_ERR_API_LISTEN';
/** A client request to the API of a running flowagg failed: unreachable, refused, or answered with an error. */
export const API_REQUEST = 'FLOWAGG_ERR_API_REQUEST';
