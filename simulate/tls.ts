// IPFIX over TLS: the client certificate the collector issues to Agents (ingest's directory store keeps it
// as client.crt and client.key beside ca.crt), the collector verified against that CA under the name
// Agents use, flow-aggregator.<namespace>.svc.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { FlowaggError } from '../lib/errors.js';
import { SIMULATE_TLS_FILES } from './errors.js';
import type { Dial } from './stream-link.js';
import { connected, type Target } from './tcp.js';

export const DEFAULT_SERVER_NAME = 'flow-aggregator.flow-aggregator.svc';

export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export interface TlsMaterial {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly serverName: string;
}

/** The files of a certificate directory, as ingest's directory store names them. */
export function directoryFiles(dir: string): TlsFiles {
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key') };
}

export function readTlsMaterial(files: TlsFiles, serverName: string): TlsMaterial {
  const read = (what: string, path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw new FlowaggError(SIMULATE_TLS_FILES, `cannot read the ${what} ${path}: ${(err as Error).message} (flowagg certs issue, or the collector's first start, writes it)`, { cause: err, context: { path } });
    }
  };
  return { ca: read('CA certificate', files.ca), cert: read('client certificate', files.cert), key: read('client key', files.key), serverName };
}

export function tlsDial(target: Target, material: TlsMaterial, localAddress: string | undefined, timeoutMs: number): Dial {
  return () =>
    connected(
      connect({
        host: target.address, port: target.port, servername: material.serverName, ca: material.ca, cert: material.cert, key: material.key,
        minVersion: 'TLSv1.2', ...(localAddress !== undefined && { localAddress }),
      }),
      'secureConnect',
      timeoutMs,
    );
}
