// A ClickHouse server for the functional tests and benchmarks, from the first source that works:
//   1. CLICKHOUSE_URL from the environment (a server someone already runs);
//   2. Testcontainers, when a container runtime answers: the locally built flowagg/clickhouse image
//      (infra/images/clickhouse, Debian's clickhouse-server, the same server as the local launcher's);
//   3. the local launcher infra/dev/clickhouse (Debian's clickhouse-server).
// Both have an HTTPS port with a CA of their own and a user with a password, for the TLS and credential tests.
// Each started server gets its own state directory, so concurrent runs do not share one.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLICKHOUSE_PASSWORD_USER, startClickHouseContainer } from './clickhouse-container.js';
import { containerRuntimeAnswers } from './containers.js';
import { startDevLauncher } from './dev-launcher.js';

export interface ClickHouseService {
  /** http://host:port */
  readonly url: string;
  readonly source: 'env' | 'testcontainers' | 'local';
  /** https://host:port and the CA that signed its certificate, when the server has TLS. */
  readonly https?: { readonly url: string; readonly caPath: string };
  /** A user with a password, when the server has one (flowagg / flowagg-secret). */
  readonly user?: { readonly username: string; readonly password: string };
  stop(): Promise<void>;
}

async function fromTestcontainers(log: (line: string) => void): Promise<ClickHouseService | undefined> {
  if (!(await containerRuntimeAnswers())) {
    log('no container runtime answers; not using Testcontainers');
    return undefined;
  }
  const container = await startClickHouseContainer(log);
  return { url: container.url, source: 'testcontainers', ...(container.https && { https: container.https }), user: CLICKHOUSE_PASSWORD_USER, stop: container.stop };
}

/** Starts a server with infra/dev/clickhouse in a state directory of its own. */
export async function startLocalClickHouse(log: (line: string) => void): Promise<ClickHouseService> {
  const dev = await startDevLauncher({ name: 'clickhouse', stateVariable: 'FLOWAGG_CLICKHOUSE_STATE', pidFiles: ['clickhouse.pid'] }, log);
  return {
    url: dev.address,
    source: 'local',
    https: { url: (await readFile(join(dev.state, 'https-url'), 'utf8')).trim(), caPath: join(dev.state, 'tls', 'ca.crt') },
    user: CLICKHOUSE_PASSWORD_USER,
    stop: dev.stop,
  };
}

export async function startClickHouse(log: (line: string) => void): Promise<ClickHouseService> {
  const fromEnv = process.env.CLICKHOUSE_URL?.trim();
  if (fromEnv) return { url: fromEnv, source: 'env', stop: async () => {} };
  const failures: string[] = [];
  for (const source of [fromTestcontainers, startLocalClickHouse]) {
    try {
      const server = await source(log);
      if (server !== undefined) return server;
    } catch (err) {
      failures.push((err as Error).message);
      log((err as Error).message);
    }
  }
  throw new Error(
    'the ClickHouse tests need a server, and none could be had: no CLICKHOUSE_URL, no container runtime, and the local ' +
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
