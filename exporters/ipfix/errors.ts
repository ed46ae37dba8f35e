// Error codes of the IPFIX exporter (FLOWAGG_ERR_IPFIX_EXPORT_*).

/** The collector cannot be reached: name resolution, connection refused or timed out, TLS handshake. */
export const IPFIX_EXPORT_CONNECT = 'FLOWAGG_ERR_IPFIX_EXPORT_CONNECT';
/** A send to the collector failed part-way (reset, broken pipe); the batch is delivered again. */
export const IPFIX_EXPORT_WRITE = 'FLOWAGG_ERR_IPFIX_EXPORT_WRITE';
/** TLS material (flowCollector.tls files or Secrets) missing or unreadable. */
export const IPFIX_EXPORT_TLS = 'FLOWAGG_ERR_IPFIX_EXPORT_TLS';
