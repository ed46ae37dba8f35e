// The API server's certificate, as Antrea's: without certFile, a CA and a server certificate for
// localhost, 127.0.0.1 and ::1 made in memory at each start (k8s.io/apiserver's
// MaybeDefaultWithSelfSignedCerts), valid a year; with certFile and keyFile, those files, re-read as
// they change (a rotated Secret). The self-signed CA is handed to clients on this machine (the log
// API's .api.json) so that they can verify the server rather than trust any certificate.
import type { Logger } from '../telemetry/logger.js';
import { FilesCertificateSource } from '../tls/files-source.js';
import { issueCA, issueServerCert } from '../tls/issue.js';

const SELF_SIGNED_NAMES = ['localhost', '127.0.0.1', '::1'] as const;
const YEAR_MS = 365 * 86_400_000;
/** How often configured certificate files are read again. */
const RECHECK_MS = 60_000;

export interface ServingCertificate {
  readonly cert: string;
  readonly key: string;
  /** The CA that signed `cert`, when it was made here. */
  readonly ca?: string;
  /** Tells `onChange` each new certificate and key (configured files only); returns what stops watching. */
  watch(onChange: (pair: { cert: string; key: string }) => void): () => void;
}

export async function servingCertificate(files: { certFile?: string; keyFile?: string }, logger: Logger, now = new Date()): Promise<ServingCertificate> {
  if (files.certFile === undefined || files.keyFile === undefined) {
    const validity = { now, validityMs: YEAR_MS };
    const ca = await issueCA(validity);
    const server = await issueServerCert(ca, SELF_SIGNED_NAMES, validity);
    return { cert: server.cert, key: server.key, ca: ca.cert, watch: () => () => {} };
  }
  const source = new FilesCertificateSource({ certFile: files.certFile, keyFile: files.keyFile, checkIntervalMs: RECHECK_MS, logger });
  await source.start();
  const { cert, key } = source.current();
  return {
    cert,
    key,
    watch(onChange) {
      const listener = (m: { cert: string; key: string }) => onChange({ cert: m.cert, key: m.key });
      source.on('updated', listener);
      return () => {
        source.off('updated', listener);
        source.stop();
      };
    },
  };
}
