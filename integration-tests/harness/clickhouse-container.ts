// The flowagg/clickhouse image (infra/images/clickhouse: Debian's clickhouse-server) under Testcontainers,
// ready when its health check passes. Users: `default` without a password, and CLICKHOUSE_IMAGE_USER.
import { type OnNetwork, hostOf, localContainer } from './containers.js';

/** The image's user with a password (infra/images/clickhouse/users.d, the same as infra/dev/clickhouse's). */
export const CLICKHOUSE_IMAGE_USER = { username: 'flowagg', password: 'flowagg-secret' } as const;

export interface ClickHouseContainer {
  /** From the host: http://127.0.0.1:<published 8123>. */
  readonly url: string;
  /** From containers on `network`: http://<alias>:8123. */
  readonly networkUrl: string | undefined;
  stop(): Promise<void>;
}

export async function startClickHouseContainer(log: (line: string) => void, network?: OnNetwork): Promise<ClickHouseContainer> {
  const { container: definition, Wait, image } = await localContainer('clickhouse', log, network);
  log(`starting ${image} with Testcontainers`);
  const container = await definition.withExposedPorts(8123).withWaitStrategy(Wait.forHealthCheck()).start();
  return {
    url: `http://${hostOf(container)}:${container.getMappedPort(8123)}`,
    networkUrl: network && `http://${network.alias}:8123`,
    stop: async () => void (await container.stop()),
  };
}
