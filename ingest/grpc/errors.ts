// Error codes of the gRPC collector and the flow stream service (FLOWAGG_ERR_GRPC_*).

/** A message that is not valid protobuf for its type (truncated, a length beyond the message, a wrong wire type). */
export const GRPC_MALFORMED = 'FLOWAGG_ERR_GRPC_MALFORMED';
/** A well-formed Flow whose values cannot be a flow (an address of the wrong length for its family). */
export const GRPC_INVALID_FLOW = 'FLOWAGG_ERR_GRPC_INVALID_FLOW';
/** A gRPC listener could not bind its address. */
export const GRPC_LISTEN = 'FLOWAGG_ERR_GRPC_LISTEN';
