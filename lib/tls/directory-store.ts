// The directory certificate store, for running outside a cluster: <slot>.crt and <slot>.key for the
// CA, the server and the agents' client certificate. Keys are written 0600 and every file is replaced
// atomically (write, then rename), so a crash leaves either the old or the new file; a crash between
// a certificate and its key leaves a pair that inspect.ts rejects (key mismatch), which is reissued.
// The server certificate is stored too (Antrea keeps it in memory): a directory belongs to one host,
// which already holds the CA key, so storing adds no exposure, and it gives operators and other tools
// (a collector in "files" mode, openssl) the exact certificate the collector serves, stable across
// restarts. One process per directory: nothing arbitrates concurrent writers here.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FlowaggError } from '../errors.js';
import { TLS_STORE } from './errors.js';
import type { KeyPair } from './issue.js';
import type { CertificateStore, Slot, Stored } from './provider.js';

export class DirectoryCertificateStore implements CertificateStore {
  constructor(private readonly dir: string) {}

  async load(slot: Slot): Promise<Stored> {
    const [cert, key] = await Promise.all([this.read(`${slot}.crt`), this.read(`${slot}.key`)]);
    if (cert === undefined && key === undefined) return { pair: undefined, version: undefined };
    return { pair: cert !== undefined && key !== undefined ? { cert, key } : undefined, version: 'file' };
  }

  async save(slot: Slot, pair: KeyPair): Promise<'saved'> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await this.write(`${slot}.key`, pair.key, 0o600);
      await this.write(`${slot}.crt`, pair.cert, 0o644);
    } catch (err) {
      throw new FlowaggError(TLS_STORE, `cannot write the ${slot} certificate to ${this.dir}: ${(err as Error).message}`, { cause: err, context: { dir: this.dir } });
    }
    return 'saved';
  }

  /** ca.crt is the published CA certificate. */
  async publishCA(): Promise<void> {}

  private async read(name: string): Promise<string | undefined> {
    try {
      return await readFile(join(this.dir, name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new FlowaggError(TLS_STORE, `cannot read ${join(this.dir, name)}: ${(err as Error).message}`, { cause: err, context: { dir: this.dir } });
    }
  }

  private async write(name: string, content: string, mode: number): Promise<void> {
    const path = join(this.dir, name);
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, content, { mode });
    await rename(tmp, path);
  }
}
