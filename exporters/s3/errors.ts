// Error codes of the S3 uploader (FLOWAGG_ERR_S3_*).

/** The s3Uploader section names something that cannot work: no bucket, a bucket that does not exist, no access. */
export const S3_CONFIG = 'FLOWAGG_ERR_S3_CONFIG';
/** S3 could not be reached or refused an upload (retried when it happens during delivery). */
export const S3_UNAVAILABLE = 'FLOWAGG_ERR_S3_UNAVAILABLE';
