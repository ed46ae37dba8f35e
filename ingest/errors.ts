// Error codes of the ingest service (FLOWAGG_ERR_INGEST_*).

/** A TCP/TLS byte stream that is not a sequence of IPFIX messages (bad version or length). */
export const INGEST_FRAMING = 'FLOWAGG_ERR_INGEST_FRAMING';
/** A record of the ipfix.templates topic that cannot be read. */
export const INGEST_TEMPLATE_RECORD = 'FLOWAGG_ERR_INGEST_TEMPLATE_RECORD';
/** The ingest service was used in a lifecycle state that does not allow it (start twice, start after stop). */
export const INGEST_STATE = 'FLOWAGG_ERR_INGEST_STATE';
