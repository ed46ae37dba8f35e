// Error codes of the flow log exporter (FLOWAGG_ERR_FLOWLOG_*).

/** The log file or its directory cannot be opened, written or synced (permissions, disk full, a bad path). */
export const FLOWLOG_IO = 'FLOWAGG_ERR_FLOWLOG_IO';
