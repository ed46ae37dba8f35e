// Error codes of the Avro schemas and their framing (FLOWAGG_ERR_SCHEMA_*).

/** A framed Avro value that starts with neither the single-object marker (C3 01) nor the Confluent magic byte (00), or is cut off. */
export const SCHEMA_BAD_FRAMING = 'FLOWAGG_ERR_SCHEMA_BAD_FRAMING';
/** A framed value whose writer schema (fingerprint or Confluent id) was never registered with the reader. */
export const SCHEMA_UNKNOWN_WRITER = 'FLOWAGG_ERR_SCHEMA_UNKNOWN_WRITER';
/** A writer schema the reader schema cannot resolve (a reader field without default that the writer lacks, incompatible types). */
export const SCHEMA_INCOMPATIBLE = 'FLOWAGG_ERR_SCHEMA_INCOMPATIBLE';
/** An Avro body that does not decode with its writer schema (truncated, trailing bytes, invalid values). */
export const SCHEMA_BAD_BODY = 'FLOWAGG_ERR_SCHEMA_BAD_BODY';
/** A schema file whose IPFIX mapping disagrees with the IE registry (type or element unknown). */
export const SCHEMA_BAD_MAPPING = 'FLOWAGG_ERR_SCHEMA_BAD_MAPPING';
/** An Antrea Flow that is not valid protobuf (truncated, a length beyond the message, a wrong wire type). Named for the gRPC collector that reports it. */
export const GRPC_MALFORMED = 'FLOWAGG_ERR_GRPC_MALFORMED';
