// Error codes of certificate management (FLOWAGG_ERR_TLS_*).

/** Certificates given as files (mode "files") that cannot be read or do not belong together. */
export const TLS_INVALID_MATERIAL = 'FLOWAGG_ERR_TLS_INVALID_MATERIAL';
/** The certificate store (Kubernetes API or directory) failed; retriable. */
export const TLS_STORE = 'FLOWAGG_ERR_TLS_STORE';
/** Other replicas kept winning the race to write a certificate; retriable. */
export const TLS_CONFLICT = 'FLOWAGG_ERR_TLS_CONFLICT';
/** current() was called before start() produced certificates. */
export const TLS_NOT_STARTED = 'FLOWAGG_ERR_TLS_NOT_STARTED';
