// Error codes of services on worker threads (threaded-service.ts).

/** A lifecycle method of a service on a thread called in a state that does not allow it. */
export const THREAD_STATE = 'FLOWAGG_ERR_THREAD_STATE';
/** A service's worker thread ended without being stopped: the service failed with it. */
export const THREAD_EXITED = 'FLOWAGG_ERR_THREAD_EXITED';
