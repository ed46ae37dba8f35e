// The IPFIX exporter (flowCollector section; reference §3, §4.3, §7.1): Antrea-compatible templates and
// values, sent to an external collector over TCP, TLS or UDP, as IPFIX or as JSON lines.
//
// The address is checked with the section (config.ts), so flowagg config check refuses what can never
// work. start() loads the TLS material and connects once; a collector that cannot be reached or a
// certificate that cannot be read fails it, naming its key, and the runner tries again with backoff.
// After that a lost session is reopened at the next delivery, with jittered exponential backoff
// (lib/retry.ts: 1 s doubling to 30 s, reset on success) shared by all partitions: between attempts
// deliveries fail at once, reaching nothing, and the runner retries them.
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import { canonicalUuid, observationDomainIdOf } from '../../lib/k8s/cluster-identity.js';
import { componentLogger, type Logger, sampledLogger } from '../../lib/telemetry/logger.js';
import { Backoff } from '../../lib/retry.js';
import { EXPORT_STATE, notDelivered } from '../errors.js';
import type { ExportBatch, Exporter } from '../types.js';
import type { CollectorAddress } from './address.js';
import type { Mode } from '../../schemas/mode.js';
import { type FlowCollectorConfig, collectorAddress } from './config.js';
import { type Connection, type TlsMaterial, openConnection } from './connection.js';
import { IPFIX_EXPORT_CONNECT } from './errors.js';
import { ExportSession } from './export-session.js';
import { ipfixMetrics } from './metrics.js';
import { TemplateRefresh } from './template-refresh.js';
import { type ExportTemplates, exportTemplates } from './templates.js';
import { loadTlsMaterial, type SecretReader } from './tls-material.js';

export interface IpfixExporterConfig {
  readonly flowCollector: FlowCollectorConfig;
  readonly mode: Mode;
  /** Antrea's top-level clusterID; "" = the cluster UUID. */
  readonly clusterID: string;
}

export interface IpfixExporterDeps {
  /** The cluster UUID (kube-system/antrea-cluster-identity), when known; read at start. */
  readonly clusterUuid?: () => Promise<string | undefined>;
  /** Reads a Secret's data in the exporter's namespace (for tls.caSecretName / clientSecretName). */
  readonly readSecret?: SecretReader;
  readonly logger?: Logger;
  readonly now?: () => number;
}

interface Session {
  readonly connection: Connection;
  readonly session: ExportSession;
  /** Over UDP, the timer that announces the templates again. */
  readonly refresh: TemplateRefresh | undefined;
}

export class IpfixExporter implements Exporter {
  readonly kind = 'ipfix' as const;
  readonly batching: Exporter['batching'];
  readonly address: CollectorAddress;
  #templates: ExportTemplates | undefined;
  #observationDomainId = 0;
  readonly #config: IpfixExporterConfig;
  readonly #c: FlowCollectorConfig;
  readonly #deps: IpfixExporterDeps;
  readonly #logger: Logger;
  readonly #warn: ReturnType<typeof sampledLogger>;
  readonly #now: () => number;
  readonly #backoff = new Backoff({ initialMs: 1000, maxMs: 30_000 });
  #tls: TlsMaterial | undefined;
  #conn: Session | undefined;
  #connecting: Promise<Session> | undefined;
  /** No connection attempt before this time (the backoff after a failed one). */
  #retryAt = 0;
  #stopped = false;

  constructor(config: IpfixExporterConfig, deps: IpfixExporterDeps = {}) {
    const c = config.flowCollector;
    this.#config = config;
    this.#c = c;
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#logger = deps.logger ?? componentLogger('export.ipfix');
    this.#warn = sampledLogger(this.#logger);
    this.address = collectorAddress(c);
    this.batching = { maxRecords: c.batchRecords, maxDelayMs: c.batchDelay };
  }

  /** The templates sent (known once started). */
  get templates(): ExportTemplates {
    if (this.#templates === undefined) throw new FlowaggError(EXPORT_STATE, 'the IPFIX exporter has no templates before start()');
    return this.#templates;
  }

  get observationDomainId(): number {
    return this.#observationDomainId;
  }

  async start(signal?: AbortSignal): Promise<void> {
    const c = this.#c;
    const read = await this.#deps.clusterUuid?.();
    const uuid = read === undefined ? undefined : canonicalUuid(read);
    // Antrea's default: FNV-1 32-bit of the cluster UUID's 16 bytes; 0 when no cluster UUID is known.
    this.#observationDomainId = c.observationDomainID ?? (uuid === undefined ? 0 : observationDomainIdOf(uuid));
    const clusterId = this.#config.clusterID !== '' ? this.#config.clusterID : (uuid ?? '');
    this.#templates = exportTemplates({ mode: this.#config.mode, includeK8sNames: c.includeK8sNames, includeK8sUIDs: c.includeK8sUIDs }, this.#observationDomainId, clusterId);
    if (this.#c.tls.enable || this.address.tls) this.#tls = await loadTlsMaterial(this.#c.tls, this.#deps.readSecret);
    await this.#connect(signal);
    this.#logger.info({ collector: `${this.address.host}:${this.address.port}`, transport: this.#conn!.connection.transport, format: this.#c.recordFormat, observationDomainId: this.observationDomainId }, 'connected to the IPFIX collector');
  }

  async deliver(batch: ExportBatch, signal: AbortSignal): Promise<void> {
    const { connection, session } = await this.#session(signal);
    const encoded = session.encode(batch);
    if (encoded.templatesSent) ipfixMetrics.templates.inc();
    if (encoded.invalid > 0) {
      ipfixMetrics.invalid.inc(encoded.invalid);
      this.#warn('invalid', { batch: batch.id, records: encoded.invalid, err: encoded.firstError }, 'records with values their elements cannot carry were not exported');
    }
    try {
      await connection.write(encoded.chunks);
    } catch (err) {
      this.#drop(connection);
      throw err;
    }
    ipfixMetrics.messages.inc(encoded.chunks.length);
    ipfixMetrics.bytes.inc(encoded.chunks.reduce((n, c) => n + c.length, 0));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#conn?.refresh?.stop();
    this.#conn?.connection.close();
    this.#conn = undefined;
  }

  #drop(connection: Connection): void {
    if (this.#conn?.connection !== connection) return;
    this.#conn.refresh?.stop();
    connection.close();
    this.#conn = undefined;
    ipfixMetrics.connected.set(0);
  }

  async #session(signal: AbortSignal): Promise<Session> {
    const current = this.#conn;
    if (current !== undefined && current.connection.open) return current;
    if (current !== undefined) {
      this.#logger.warn({ collector: `${this.address.host}:${this.address.port}` }, 'the collector closed the session; reconnecting');
      this.#drop(current.connection);
    }
    if (signal.aborted || this.#stopped) throw notDelivered(new FlowaggError(IPFIX_EXPORT_CONNECT, 'the exporter is stopping'));
    const wait = this.#retryAt - this.#now();
    if (wait > 0 && this.#connecting === undefined) {
      throw notDelivered(new FlowaggError(IPFIX_EXPORT_CONNECT, `the IPFIX collector ${this.address.host}:${this.address.port} is unreachable; next connection attempt in ${Math.ceil(wait / 1000)} s`, { retriable: true }));
    }
    return this.#connect();
  }

  #connect(signal?: AbortSignal): Promise<Session> {
    this.#connecting ??= (async () => {
      try {
        const connection = await openConnection(this.address, this.#tls, this.#c.connectTimeout, signal);
        if (this.#stopped) {
          connection.close();
          throw notDelivered(new FlowaggError(IPFIX_EXPORT_CONNECT, 'the exporter is stopping'));
        }
        const session = new ExportSession({
          format: this.#c.recordFormat,
          templates: this.templates,
          observationDomainId: this.observationDomainId,
          maxMessageSize: this.#c.maxIPFIXMsgSize === 0 ? connection.pathMessageSize : Math.min(this.#c.maxIPFIXMsgSize, connection.pathMessageSize),
          templateRefreshMs: connection.transport === 'udp' ? this.#c.templateRefreshTimeout : 0,
          now: this.#now,
        });
        // Both templates as the session opens, as Antrea's exporting process sends them, before any data.
        try {
          await connection.write(session.announce());
        } catch (err) {
          connection.close();
          throw err;
        }
        if (this.#c.recordFormat === 'IPFIX') ipfixMetrics.templates.inc();
        this.#backoff.reset();
        const refresh = session.refreshDueAt() === undefined ? undefined : new TemplateRefresh({
          session,
          send: (chunks) => connection.write(chunks).then(() => ipfixMetrics.templates.inc()),
          now: this.#now,
          onError: (err) => {
            this.#logger.warn({ collector: `${this.address.host}:${this.address.port}`, err: errorMessage(err) }, 'cannot send the templates again; the next delivery reconnects');
            this.#drop(connection);
          },
        });
        this.#conn = { connection, session, refresh };
        ipfixMetrics.connected.set(1);
        ipfixMetrics.connections.inc();
        return this.#conn;
      } catch (err) {
        const delay = this.#backoff.next();
        this.#retryAt = this.#now() + delay;
        ipfixMetrics.connectFailures.inc();
        // The runner logs the collector unreachable once (destination-health.ts); each attempt is a debug line.
        this.#logger.debug({ collector: `${this.address.host}:${this.address.port}`, retryInMs: delay, err: errorMessage(err) }, 'cannot connect to the IPFIX collector');
        throw err;
      } finally {
        this.#connecting = undefined;
      }
    })();
    return this.#connecting;
  }
}
