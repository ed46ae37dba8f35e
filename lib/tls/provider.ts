// Keeps the collector's certificates valid. Each check (at start, then every checkInterval) walks the
// three slots in order — CA, agents' client certificate, collector's server certificate — and reuses
// what the store holds when it is usable (inspect.ts), or issues a replacement and writes it with
// compare-and-swap. A replica that loses the race re-reads and takes the winner's certificate, so
// replicas starting together converge on one CA. When the CA or server certificate changes, 'updated'
// tells the TLS listener to reload.
import { X509Certificate } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { FlowaggError, errorMessage } from '../errors.js';
import { componentLogger, type Logger } from '../telemetry/logger.js';
import { TLS_CONFLICT, TLS_NOT_STARTED } from './errors.js';
import { checkCA, checkLeaf, type Verdict } from './inspect.js';
import { type KeyPair, type Validity, issueCA, issueClientCert, issueServerCert } from './issue.js';
import { tlsMetrics } from './metrics.js';

/** What a TLS server needs, PEM. */
export interface TlsMaterial {
  key: string;
  cert: string;
  ca: string;
}

/** Where the collector's certificates come from; the TLS listener depends on this only. */
export interface CertificateSource {
  /** Produces the first certificates; rejects when it cannot. */
  start(): Promise<void>;
  stop(): void;
  current(): TlsMaterial;
  /** After start, each time the material changes. */
  on(event: 'updated', listener: (material: TlsMaterial) => void): this;
  off(event: 'updated', listener: (material: TlsMaterial) => void): this;
}

export type Slot = 'ca' | 'client' | 'server';

/** A slot's content; `version` is undefined when nothing is stored, `pair` when what is stored is unreadable. */
export interface Stored {
  pair: KeyPair | undefined;
  version: string | undefined;
}

export interface CertificateStore {
  load(slot: Slot): Promise<Stored>;
  /** Writes `pair` if the slot is still at `previous.version`; 'conflict' when another writer came first. */
  save(slot: Slot, pair: KeyPair, previous: Stored): Promise<'saved' | 'conflict'>;
  /** Makes the CA certificate available to exporters (ConfigMap flow-aggregator-ca); idempotent. */
  publishCA(caCert: string): Promise<void>;
  /** Stores shared with other writers report their changes, so that a check follows; returns a stop function. */
  watch?(onChange: () => void): () => void;
}

export interface ProviderOptions {
  store: CertificateStore;
  /** SANs of the server certificate. */
  serverNames: readonly string[];
  validityMs: number;
  renewBeforeMs: number;
  checkIntervalMs: number;
  /** Delay before the next check after a failed one. */
  retryIntervalMs?: number;
  now?: () => Date;
  logger?: Logger;
}

const MAX_WRITE_ATTEMPTS = 5;

export class CertificateProvider extends EventEmitter implements CertificateSource {
  private material: TlsMaterial | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private unwatch: (() => void) | undefined;
  private stopped = false;
  private readonly now: () => Date;
  private readonly log: Logger;

  constructor(private readonly opts: ProviderOptions) {
    super();
    this.now = opts.now ?? (() => new Date());
    this.log = opts.logger ?? componentLogger('ingest-tls');
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.check();
    if (this.stopped) return;
    this.schedule(this.opts.checkIntervalMs);
    this.unwatch = this.opts.store.watch?.(() => {
      this.check().catch((err: unknown) => this.checkFailed(err));
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.unwatch?.();
    this.unwatch = undefined;
  }

  current(): TlsMaterial {
    if (this.material === undefined) throw new FlowaggError(TLS_NOT_STARTED, 'no certificates yet: start() the certificate provider first');
    return this.material;
  }

  /**
   * Checks the certificates now. A call made while a check is under way runs another one after it
   * (that check may have read the store before whatever prompted this call); calls made meanwhile share it.
   */
  check(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.sync().finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.check();
      });
    return this.queued;
  }

  private checkFailed(err: unknown): void {
    tlsMetrics.syncFailures.inc();
    this.log.warn({ err: errorMessage(err) }, 'certificate check failed; retrying');
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.check().then(
        () => this.schedule(this.opts.checkIntervalMs),
        (err: unknown) => {
          this.checkFailed(err);
          this.schedule(Math.min(this.opts.retryIntervalMs ?? 30_000, this.opts.checkIntervalMs));
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  private async sync(): Promise<void> {
    const now = this.now();
    const freshness = { now, renewBeforeMs: this.opts.renewBeforeMs };
    const validity: Validity = { now, validityMs: this.opts.validityMs };
    const ca = await this.ensure('ca', (p) => checkCA(p, freshness), () => issueCA(validity));
    await this.opts.store.publishCA(ca.cert);
    await this.ensure('client', (p) => checkLeaf(p, ca, freshness), () => issueClientCert(ca, validity));
    const names = this.opts.serverNames;
    const server = await this.ensure('server', (p) => checkLeaf(p, ca, freshness, names), () => issueServerCert(ca, names, validity));

    const previous = this.material;
    if (previous?.cert === server.cert && previous.ca === ca.cert) return;
    this.material = { key: server.key, cert: server.cert, ca: ca.cert };
    if (previous !== undefined) {
      this.log.info('certificates changed; TLS listeners reload');
      this.emit('updated', this.material);
    }
  }

  private async ensure(slot: Slot, check: (pair: KeyPair | undefined) => Verdict, issue: () => Promise<KeyPair>): Promise<KeyPair> {
    for (let attempt = 1; attempt <= MAX_WRITE_ATTEMPTS; attempt++) {
      const stored = await this.opts.store.load(slot);
      const verdict = check(stored.pair);
      if (verdict.usable) return recordExpiry(slot, stored.pair!, verdict.notAfter);
      this.log.info({ slot, reason: verdict.reason }, 'issuing certificate');
      const pair = await issue();
      if ((await this.opts.store.save(slot, pair, stored)) === 'saved') {
        tlsMetrics.issued.inc({ kind: slot });
        return recordExpiry(slot, pair, new Date(new X509Certificate(pair.cert).validTo));
      }
      this.log.info({ slot, attempt }, 'another replica wrote the certificate first; reading it');
    }
    throw new FlowaggError(TLS_CONFLICT, `gave up writing the ${slot} certificate after ${MAX_WRITE_ATTEMPTS} conflicting writes`, {
      retriable: true,
      context: { slot },
    });
  }
}

function recordExpiry(slot: Slot, pair: KeyPair, notAfter: Date): KeyPair {
  tlsMetrics.expiry.set({ kind: slot }, notAfter.getTime() / 1000);
  return pair;
}
