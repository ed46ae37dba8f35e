// The flowagg/clickhouse image (infra/images/clickhouse: Debian's clickhouse-server) under Testcontainers,
// ready when its health check passes. Users: `default` without a password, and CLICKHOUSE_PASSWORD_USER.
// Like infra/dev/clickhouse it also serves HTTPS, with a certificate for localhost and 127.0.0.1 from a CA
// issued for this container alone, handed in when it is created (the image holds no key).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCA, issueServerCert } from '../../lib/tls/issue.js';
import { type OnNetwork, hostOf, localContainer } from './containers.js';

/** The user with a password of the image (infra/images/clickhouse/users.d) and of infra/dev/clickhouse. */
export const CLICKHOUSE_PASSWORD_USER = { username: 'flowagg', password: 'flowagg-secret' } as const;

export interface ClickHouseContainer {
  /** From the host: http://127.0.0.1:<published 8123>. */
  readonly url: string;
  /** From the host: https://127.0.0.1:<published 8443>, and the CA file (on the host) that signed it, when the engine is local. */
  readonly https?: { readonly url: string; readonly caPath: string };
  /** From containers on `network`: http://<alias>:8123. */
  readonly networkUrl: string | undefined;
  stop(): Promise<void>;
}

const TLS_DIR = '/etc/clickhouse-server/tls';
const HTTPS_CONFIG = `<?xml version="1.0"?>
<yandex>
  <https_port>8443</https_port>
  <openSSL>
    <server>
      <certificateFile>${TLS_DIR}/server.crt</certificateFile>
      <privateKeyFile>${TLS_DIR}/server.key</privateKeyFile>
      <!-- The package's config.xml names a dhparam.pem it does not ship; without the file the server stops. -->
      <dhParamsFile remove="1"/>
      <verificationMode>none</verificationMode>
      <loadDefaultCAFile>false</loadDefaultCAFile>
      <disableProtocols>sslv2,sslv3</disableProtocols>
    </server>
  </openSSL>
</yandex>
`;

export async function startClickHouseContainer(log: (line: string) => void, network?: OnNetwork): Promise<ClickHouseContainer> {
  const validity = { now: new Date(), validityMs: 86_400_000 };
  const ca = await issueCA(validity);
  const server = await issueServerCert(ca, ['localhost', '127.0.0.1'], validity);
  const caDir = await mkdtemp(join(tmpdir(), 'flowagg-clickhouse-ca-'));
  const caPath = join(caDir, 'ca.crt');
  await writeFile(caPath, ca.cert);
  const { container: definition, Wait, image } = await localContainer('clickhouse', log, network);
  log(`starting ${image} with Testcontainers`);
  const container = await definition
    .withExposedPorts(8123, 8443)
    .withCopyContentToContainer([
      { content: HTTPS_CONFIG, target: '/etc/clickhouse-server/config.d/https.xml' },
      { content: server.cert, target: `${TLS_DIR}/server.crt` },
      // Readable by the server's user; the key of a throwaway test CA's certificate.
      { content: server.key, target: `${TLS_DIR}/server.key`, mode: 0o644 },
    ])
    .withWaitStrategy(Wait.forHealthCheck())
    .start()
    .catch(async (err: unknown) => {
      await rm(caDir, { recursive: true, force: true });
      throw err;
    });
  const host = hostOf(container);
  return {
    url: `http://${host}:${container.getMappedPort(8123)}`,
    // The certificate names only the loopback: an engine on another machine is reached over HTTP alone.
    ...(host === '127.0.0.1' && { https: { url: `https://${host}:${container.getMappedPort(8443)}`, caPath } }),
    networkUrl: network && `http://${network.alias}:8123`,
    stop: async () => {
      await container.stop();
      await rm(caDir, { recursive: true, force: true });
    },
  };
}
