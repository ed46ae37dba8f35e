// Certificates issued by someone else (cert-manager, a corporate CA), given as PEM files: read at
// start, re-read every checkInterval, and 'updated' when their content changed (a mounted Secret was
// rotated). Nothing is issued; what is checked is that the files parse and the key fits the certificate,
// not that the CA signed it directly (the certificate file may carry an intermediate chain). A server
// that verifies no client (the API server) has no CA file; its material's `ca` is then empty.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import { FlowaggError, errorMessage } from '../errors.js';
import { componentLogger, type Logger } from '../telemetry/logger.js';
import { TLS_INVALID_MATERIAL, TLS_NOT_STARTED } from './errors.js';
import { tlsMetrics } from './metrics.js';
import type { CertificateSource, TlsMaterial } from './provider.js';

export interface FilesSourceOptions {
  certFile: string;
  keyFile: string;
  caFile?: string;
  checkIntervalMs: number;
  logger?: Logger;
}

export class FilesCertificateSource extends EventEmitter implements CertificateSource {
  private material: TlsMaterial | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;

  constructor(private readonly opts: FilesSourceOptions) {
    super();
    this.log = opts.logger ?? componentLogger('ingest-tls');
  }

  async start(): Promise<void> {
    this.material = await this.readFiles();
    this.timer = setInterval(() => void this.reload(), this.opts.checkIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  current(): TlsMaterial {
    if (this.material === undefined) throw new FlowaggError(TLS_NOT_STARTED, 'no certificates yet: start() the certificate source first');
    return this.material;
  }

  /** Re-reads the files; keeps the previous material when the new files are unusable. */
  async reload(): Promise<void> {
    try {
      const next = await this.readFiles();
      const previous = this.material;
      this.material = next;
      if (previous !== undefined && (previous.cert !== next.cert || previous.key !== next.key || previous.ca !== next.ca)) this.emit('updated', next);
    } catch (err) {
      tlsMetrics.syncFailures.inc();
      this.log.warn({ err: errorMessage(err) }, 'certificate files unusable; keeping the previous ones');
    }
  }

  private async readFiles(): Promise<TlsMaterial> {
    const { certFile, keyFile, caFile } = this.opts;
    const context = { certFile, keyFile, caFile };
    // Every unreadable file is named, in a fixed order: reading them in parallel, the first to fail was whichever the disk answered first.
    const reads = await Promise.allSettled([certFile, keyFile, caFile].map((f) => (f === undefined ? '' : readFile(f, 'utf8'))));
    const failed = reads.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    if (failed.length > 0) {
      const first = reads.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      throw new FlowaggError(TLS_INVALID_MATERIAL, `cannot read the TLS certificate files: ${failed.join('; ')}`, { cause: first.reason, context });
    }
    const [cert, key, ca] = reads.map((r) => (r as PromiseFulfilledResult<string>).value);
    const material: TlsMaterial = { cert: cert!, key: key!, ca: ca! };
    let fits: boolean;
    try {
      if (caFile !== undefined) new X509Certificate(material.ca);
      fits = new X509Certificate(material.cert).checkPrivateKey(createPrivateKey(material.key));
    } catch (err) {
      throw new FlowaggError(TLS_INVALID_MATERIAL, `TLS certificate files are not PEM certificates and key: ${(err as Error).message}`, { cause: err, context });
    }
    if (!fits) throw new FlowaggError(TLS_INVALID_MATERIAL, `the key in ${keyFile} does not belong to the certificate in ${certFile}`, { context });
    return material;
  }
}
