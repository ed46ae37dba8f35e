// Error codes of the gRPC collector and the flow stream service (FLOWAGG_ERR_GRPC_*).

/** A well-formed Flow whose values cannot be a flow (an address of the wrong length for its family). */
export const GRPC_INVALID_FLOW = 'FLOWAGG_ERR_GRPC_INVALID_FLOW';
/** A gRPC listener could not bind its address. */
export const GRPC_LISTEN = 'FLOWAGG_ERR_GRPC_LISTEN';
