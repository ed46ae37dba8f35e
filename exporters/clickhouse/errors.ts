// Error codes of the ClickHouse exporter (FLOWAGG_ERR_CLICKHOUSE_*).

/** The clickHouse section names something that cannot work: a URL, a CA file, credentials. */
export const CLICKHOUSE_CONFIG = 'FLOWAGG_ERR_CLICKHOUSE_CONFIG';
/** The server could not be reached or refused a request (retried when it happens during delivery). */
export const CLICKHOUSE_UNAVAILABLE = 'FLOWAGG_ERR_CLICKHOUSE_UNAVAILABLE';
/** An existing flows table lacks columns the exporter inserts, or the schema could not be created. */
export const CLICKHOUSE_SCHEMA = 'FLOWAGG_ERR_CLICKHOUSE_SCHEMA';
