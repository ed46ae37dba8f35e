// The ClickHouse server as the exporter sees it, over @clickhouse/client's HTTP interface: the client
// built from the clickHouse section (URL, TLS, credentials, compression), reaching the server at start,
// what the server can do (capabilities), the schema, and RowBinary inserts that say, when they fail,
// whether the server can have taken any of the rows.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ClickHouseClient, ClickHouseError, ClickHouseLogLevel, createClient, type ErrorLogParams, type LogParams, type Logger as ChLogger, type WarnLogParams,
} from '@clickhouse/client';
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import type { Logger } from '../../lib/telemetry/logger.js';
import { CLICKHOUSE_COLUMNS } from '../row/columns.js';
import type { ClickHouseConfig, ClickHouseCredentials } from './config.js';
import { CLICKHOUSE_CONFIG, CLICKHOUSE_SCHEMA, CLICKHOUSE_UNAVAILABLE } from './errors.js';
import { BATCH_COLUMN, schemaDdl, type ServerCapabilities } from './schema.js';
import { httpEndpoint, type HttpEndpoint } from './url.js';

/** Failures that happen before a request reaches the server: no row can have been inserted. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/** An exception the server answered with (modern servers: ClickHouseError; 18.x: "Code: N, e.displayText() = …"). */
function isServerAnswer(err: unknown): boolean {
  return err instanceof ClickHouseError || /^Code: \d+/.test(errorMessage(err));
}

/**
 * Whether a failed insert may have inserted its rows. An answer from the server (an exception: the
 * insert of one block is atomic) or a connection that never opened says no; a connection lost while the
 * request was on its way, or a timeout, cannot tell.
 */
export function insertOutcome(err: unknown): 'not-inserted' | 'unknown' {
  if (isServerAnswer(err)) return 'not-inserted';
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && NOT_SENT.has(code) ? 'not-inserted' : 'unknown';
}

function clientLogger(logger: Logger): new () => ChLogger {
  const fields = (p: LogParams) => ({ module: p.module, ...(p.args && { args: p.args }) });
  return class {
    trace(p: LogParams) {
      logger.trace(fields(p), p.message);
    }
    debug(p: LogParams) {
      logger.debug(fields(p), p.message);
    }
    info(p: LogParams) {
      logger.debug(fields(p), p.message);
    }
    warn(p: WarnLogParams) {
      logger.warn({ ...fields(p), err: p.err }, p.message);
    }
    // Failed requests are reported by the exporter with their consequence (retried, counted).
    error(p: ErrorLogParams) {
      logger.debug({ ...fields(p), err: p.err }, p.message);
    }
  };
}

function readCa(config: ClickHouseConfig): Buffer | undefined {
  if (!config.tls.caCert) return undefined;
  try {
    return readFileSync(config.caCertPath);
  } catch (err) {
    throw new FlowaggError(CLICKHOUSE_CONFIG, `clickHouse.caCertPath ${config.caCertPath} (read because clickHouse.tls.caCert is true): ${errorMessage(err)}`, {
      context: { key: 'clickHouse.caCertPath', path: config.caCertPath },
      cause: err,
    });
  }
}

/**
 * How a batch inserted twice is kept from being in the table twice: the server's insert token (22.x,
 * on a table that deduplicates), the batch column (servers without tokens, on a table that has it: the
 * exporter asks whether the batch is in before inserting it again), or not at all.
 */
export type Deduplication = 'token' | 'batch-column' | 'none';

const sqlString = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

export class ClickHouseServer {
  readonly endpoint: HttpEndpoint;
  readonly #client: ClickHouseClient;
  readonly #config: ClickHouseConfig;
  readonly #credentials: ClickHouseCredentials;
  #deduplication: Deduplication = 'none';

  /** Validates the URL and reads the CA file (FlowaggError naming the key); connects nothing yet. Made by the exporter's start, so a CA file not there yet is retried. */
  constructor(config: ClickHouseConfig, credentials: ClickHouseCredentials, logger: Logger) {
    this.#config = config;
    this.#credentials = credentials;
    this.endpoint = httpEndpoint(config.databaseURL, config.httpPort);
    const ca = readCa(config);
    if (!this.endpoint.tls && (config.tls.caCert || config.tls.insecureSkipVerify)) {
      logger.warn({ url: this.endpoint.url }, 'clickHouse.tls settings are ignored: databaseURL is not tls:// or https://');
    }
    // insecureSkipVerify needs an agent of our own (the client's tls option always verifies). Idle
    // sockets are closed before the server's 3 s keep-alive ends them under a request.
    const agent = this.endpoint.tls && config.tls.insecureSkipVerify ? new Agent({ keepAlive: true, timeout: 2000, rejectUnauthorized: false, ...(ca && { ca }) }) : undefined;
    this.#client = createClient({
      url: this.endpoint.url,
      username: credentials.username,
      password: credentials.password,
      // Every statement names its database: the configured one may not exist until ensureSchema creates it.
      database: 'default',
      request_timeout: config.requestTimeout,
      // gzip's fastest level: Antrea's LZ4 trades ratio for speed too, and zlib's default (6) took more of
      // the exporter's CPU than writing the rows (105,610 rows per CPU-s against 230,806 uncompressed).
      compression: { request: config.compress && { codec: 'gzip', level: 1 }, response: config.compress },
      // Servers before 23.11 close idle connections after 3 s; a busy event loop runs the client's idle
      // timer late, so sockets are dropped well before and checked before each reuse.
      keep_alive: { enabled: true, idle_socket_ttl: 1000, eagerly_destroy_stale_sockets: true },
      application: 'flowagg',
      log: { LoggerClass: clientLogger(logger), level: config.debug ? ClickHouseLogLevel.TRACE : ClickHouseLogLevel.WARN },
      ...(agent ? { http_agent: agent } : ca && this.endpoint.tls ? { tls: { ca_cert: ca } } : {}),
    });
  }

  /** Reaches the server, retrying once a second until clickHouse.startTimeout; then fails naming the URL. */
  async connect(signal?: AbortSignal): Promise<string> {
    const deadline = Date.now() + this.#config.startTimeout;
    for (;;) {
      try {
        return await this.#scalar('SELECT version()', signal);
      } catch (err) {
        const auth = /Code: (192|193|516)\b|Authentication failed|password is incorrect|Unknown user/i.test(errorMessage(err));
        if (auth) {
          throw new FlowaggError(CLICKHOUSE_CONFIG, `ClickHouse at ${this.endpoint.url} refused the credentials of user ${this.#credentials.username} (CH_USERNAME, CH_PASSWORD): ${errorMessage(err)}`, {
            context: { key: 'CH_USERNAME', url: this.endpoint.url },
            cause: err,
          });
        }
        if (isServerAnswer(err)) {
          throw new FlowaggError(CLICKHOUSE_CONFIG, `clickHouse.databaseURL ${this.#config.databaseURL}: the server at ${this.endpoint.url} refused SELECT version(): ${errorMessage(err)}`, {
            context: { key: 'clickHouse.databaseURL', url: this.endpoint.url },
            cause: err,
          });
        }
        if (Date.now() >= deadline || signal?.aborted) {
          throw new FlowaggError(CLICKHOUSE_UNAVAILABLE, `clickHouse.databaseURL ${this.#config.databaseURL}: cannot reach ClickHouse at ${this.endpoint.url} within ${this.#config.startTimeout} ms: ${errorMessage(err)}`, {
            context: { key: 'clickHouse.databaseURL', url: this.endpoint.url },
            cause: err,
            retriable: true,
          });
        }
        await sleep(1000, undefined, { signal }).catch(() => {});
      }
    }
  }

  async #scalar(query: string, signal?: AbortSignal): Promise<string> {
    const rs = await this.#client.query({ query, format: 'TabSeparated', ...(signal && { abort_signal: signal }) });
    return (await rs.text()).trim();
  }

  async capabilities(version: string): Promise<ServerCapabilities> {
    const settings = await this.#scalar("SELECT groupArray(name) FROM system.settings WHERE name = 'insert_deduplication_token'");
    const mergeTree = await this.#scalar("SELECT groupArray(name) FROM system.merge_tree_settings WHERE name IN ('merge_with_ttl_timeout', 'non_replicated_deduplication_window')");
    return {
      version,
      ttl: mergeTree.includes('merge_with_ttl_timeout'),
      insertDeduplicationToken: settings.includes('insert_deduplication_token'),
      nonReplicatedDeduplication: mergeTree.includes('non_replicated_deduplication_window'),
    };
  }

  /** Creates what is missing (clickHouse.createSchema), checks that the flows table has every column inserted, and finds how it deduplicates. */
  async ensureSchema(caps: ServerCapabilities): Promise<Deduplication> {
    const db = this.#config.database;
    if (this.#config.createSchema) {
      for (const ddl of schemaDdl(caps, { database: db, ttlSeconds: Math.floor(this.#config.tableTTL / 1000) })) {
        try {
          await this.#client.command({ query: ddl });
        } catch (err) {
          throw new FlowaggError(CLICKHOUSE_SCHEMA, `cannot create the ClickHouse schema in database ${db} (clickHouse.createSchema): ${errorMessage(err)}\n${ddl}`, { context: { key: 'clickHouse.createSchema' }, cause: err });
        }
      }
    }
    const rs = await this.#client.query({ query: `SELECT name FROM system.columns WHERE database = ${sqlString(db)} AND table = 'flows'`, format: 'JSONEachRow' });
    const have = new Set((await rs.json<{ name: string }>()).map((r) => r.name));
    const missing = CLICKHOUSE_COLUMNS.map((c) => c.name).filter((n) => !have.has(n));
    if (missing.length > 0) {
      const what = have.size === 0 ? `there is no table ${db}.flows (and clickHouse.createSchema is false)` : `${db}.flows lacks the columns ${missing.join(', ')}`;
      throw new FlowaggError(CLICKHOUSE_SCHEMA, `ClickHouse at ${this.endpoint.url}: ${what}`, { context: { key: 'clickHouse.database' } });
    }
    if (caps.insertDeduplicationToken) {
      const engine = await this.#scalar(`SELECT engine_full FROM system.tables WHERE database = ${sqlString(db)} AND name = 'flows'`);
      this.#deduplication = engine.startsWith('Replicated') || /non_replicated_deduplication_window = [1-9]/.test(engine) ? 'token' : 'none';
    } else {
      this.#deduplication = have.has(BATCH_COLUMN) ? 'batch-column' : 'none';
    }
    return this.#deduplication;
  }

  /** Whether rows of batch `id` are in the table (batch-column deduplication; one insert is one atomic block). */
  async hasBatch(id: string): Promise<boolean> {
    return (await this.#scalar(`SELECT count() FROM \`${this.#config.database}\`.flows WHERE ${BATCH_COLUMN} = ${sqlString(id)}`)) !== '0';
  }

  /**
   * Inserts RowBinary rows (written with the batch id column when the table deduplicates by it). With
   * token deduplication the batch id is the insert's insert_deduplication_token.
   */
  async insert(rows: Buffer, batchId: string, signal?: AbortSignal): Promise<void> {
    const columns: string[] = CLICKHOUSE_COLUMNS.map((c) => c.name);
    if (this.#deduplication === 'batch-column') columns.push(BATCH_COLUMN);
    const result = await this.#client.exec({
      query: `INSERT INTO \`${this.#config.database}\`.flows (${columns.join(', ')}) FORMAT RowBinary`,
      values: Readable.from([rows], { objectMode: false }),
      ...(this.#deduplication === 'token' && { clickhouse_settings: { insert_deduplication_token: batchId } }),
      ...(signal && { abort_signal: signal }),
    });
    result.stream.resume();
    await new Promise<void>((resolve, reject) => {
      result.stream.once('end', resolve);
      result.stream.once('error', reject);
    });
  }

  /** A query for tests and tools (the exporter itself only inserts). */
  get client(): ClickHouseClient {
    return this.#client;
  }

  close(): Promise<void> {
    return this.#client.close();
  }
}
