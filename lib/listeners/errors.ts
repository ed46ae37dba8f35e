// Error codes of the listeners. They were ingest's first, and keep its code: what operators match on is unchanged.

/** A listener could not bind its address (port in use, permission). */
export const INGEST_LISTEN = 'FLOWAGG_ERR_INGEST_LISTEN';
