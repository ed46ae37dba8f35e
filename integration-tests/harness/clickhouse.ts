// A ClickHouse server for the functional tests and benchmarks, from the first source that works:
//   1. CLICKHOUSE_URL from the environment (a server someone already runs);
//   2. Testcontainers, when a container runtime answers and an image is named (FLOWAGG_CLICKHOUSE_IMAGE,
//      or the `image` argument): any image whose server answers HTTP on 8123 with the `default` user,
//      such as the locally built Debian clickhouse-server image;
//   3. the local launcher infra/dev/clickhouse (Debian's clickhouse-server), which also has an HTTPS port
//      with its own CA and a user with a password, for the TLS and credential tests.
// Each started server gets its own state directory, so concurrent runs do not share one.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevLauncher } from './dev-launcher.js';

export interface ClickHouseService {
  /** http://host:port */
  readonly url: string;
  readonly source: 'env' | 'testcontainers' | 'local';
  /** https://localhost:port and the CA that signed its certificate, when the server has TLS (local). */
  readonly https?: { readonly url: string; readonly caPath: string };
  /** A user with a password, when the server has one (local: flowagg / flowagg-secret). */
  readonly user?: { readonly username: string; readonly password: string };
  stop(): Promise<void>;
}

export const LOCAL_CLICKHOUSE_USER = { username: 'flowagg', password: 'flowagg-secret' } as const;

async function fromTestcontainers(image: string | undefined, log: (line: string) => void): Promise<ClickHouseService | undefined> {
  if (image === undefined) {
    log('no ClickHouse image named (FLOWAGG_CLICKHOUSE_IMAGE); not using Testcontainers');
    return undefined;
  }
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    log('no container runtime answers; not using Testcontainers');
    return undefined;
  }
  log(`starting ${image} with Testcontainers`);
  const container = await new GenericContainer(image).withExposedPorts(8123).withWaitStrategy(Wait.forHttp('/ping', 8123)).start();
  return {
    url: `http://${container.getHost()}:${container.getMappedPort(8123)}`,
    source: 'testcontainers',
    stop: async () => {
      await container.stop();
    },
  };
}

/** Starts a server with infra/dev/clickhouse in a state directory of its own. */
export async function startLocalClickHouse(log: (line: string) => void): Promise<ClickHouseService> {
  const dev = await startDevLauncher({ name: 'clickhouse', stateVariable: 'FLOWAGG_CLICKHOUSE_STATE', pidFiles: ['clickhouse.pid'] }, log);
  return {
    url: dev.address,
    source: 'local',
    https: { url: (await readFile(join(dev.state, 'https-url'), 'utf8')).trim(), caPath: join(dev.state, 'tls', 'ca.crt') },
    user: LOCAL_CLICKHOUSE_USER,
    stop: dev.stop,
  };
}

export async function startClickHouse(log: (line: string) => void, image = process.env.FLOWAGG_CLICKHOUSE_IMAGE): Promise<ClickHouseService> {
  const fromEnv = process.env.CLICKHOUSE_URL?.trim();
  if (fromEnv) return { url: fromEnv, source: 'env', stop: async () => {} };
  const failures: string[] = [];
  for (const source of [() => fromTestcontainers(image, log), () => startLocalClickHouse(log)]) {
    try {
      const server = await source();
      if (server !== undefined) return server;
    } catch (err) {
      failures.push((err as Error).message);
      log((err as Error).message);
    }
  }
  throw new Error(
    'the ClickHouse tests need a server, and none could be had: no CLICKHOUSE_URL, no container runtime with an image, and the local ' +
      `launcher failed (it needs Debian's clickhouse-server; .ci/run installs it).\n${failures.join('\n')}\n` +
      'Set CLICKHOUSE_URL=http://host:8123 to use a running server, or run only the unit tests with `npm run test:unit`.',
  );
}

/** The variables scripts/test.ts hands to the test processes. */
export function clickHouseEnv(s: ClickHouseService): Record<string, string> {
  return {
    CLICKHOUSE_URL: s.url,
    ...(s.https && { CLICKHOUSE_HTTPS_URL: s.https.url, CLICKHOUSE_CA: s.https.caPath }),
    ...(s.user && { CLICKHOUSE_TEST_USER: `${s.user.username}:${s.user.password}` }),
  };
}

export interface ClickHouseForTests {
  readonly url: string;
  readonly https?: { readonly url: string; readonly caPath: string };
  readonly user?: { readonly username: string; readonly password: string };
}

/**
 * The server a functional test runs against (scripts/test.ts sets CLICKHOUSE_URL for the whole run).
 * Without one, a test is skipped with the reason, except in CI, where that is a failure.
 */
export function clickHouseForTests(): { server: ClickHouseForTests; skip: false } | { server: undefined; skip: string } {
  const url = process.env.CLICKHOUSE_URL?.trim();
  if (url) {
    const https = process.env.CLICKHOUSE_HTTPS_URL && process.env.CLICKHOUSE_CA ? { url: process.env.CLICKHOUSE_HTTPS_URL, caPath: process.env.CLICKHOUSE_CA } : undefined;
    const [username, password] = (process.env.CLICKHOUSE_TEST_USER ?? '').split(':');
    return { server: { url, ...(https && { https }), ...(username && password && { user: { username, password } }) }, skip: false };
  }
  if (process.env.CI === 'true') throw new Error('CLICKHOUSE_URL is not set in CI: run the functional tests through `npm test`, which starts a server');
  return { server: undefined, skip: 'CLICKHOUSE_URL is not set (`npm test` starts a server; or CLICKHOUSE_URL=$(infra/dev/clickhouse start))' };
}
