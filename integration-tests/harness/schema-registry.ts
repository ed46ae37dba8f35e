// A Confluent-compatible schema registry for the functional tests, from the first source that works:
//   1. SCHEMA_REGISTRY_URL from the environment (a registry someone already runs);
//   2. the local launcher infra/dev/schema-registry (AxonOps Schema Registry built from the Go module
//      proxy), which also starts a second registry behind mutual TLS and basic auth.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startDevLauncher } from './dev-launcher.js';

/** The registry behind mutual TLS and basic auth that the local launcher starts beside the plain one. */
export interface SecureRegistry {
  readonly url: string;
  /** PEM files: the CA of the registry's certificate, and the client certificate and key it verifies. */
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  readonly username: string;
  readonly password: string;
}

export interface SchemaRegistry {
  readonly url: string;
  readonly source: 'env' | 'local';
  readonly secure?: SecureRegistry;
  stop(): Promise<void>;
}

/** The secure registry's user (infra/dev/schema-registry). */
export const LOCAL_REGISTRY_USER = { username: 'flowagg', password: 'flowagg-secret' } as const;

/** How scripts/test.ts hands the registries to the test processes. */
const ENV = { url: 'SCHEMA_REGISTRY_URL', secureUrl: 'SCHEMA_REGISTRY_SECURE_URL', secureTls: 'SCHEMA_REGISTRY_SECURE_TLS' } as const;

export async function startSchemaRegistry(log: (line: string) => void): Promise<SchemaRegistry> {
  const fromEnv = process.env[ENV.url]?.trim();
  if (fromEnv) return { url: fromEnv, source: 'env', secure: secureFromEnv(), stop: async () => {} };
  let launched;
  try {
    launched = await startDevLauncher({ name: 'schema-registry', stateVariable: 'FLOWAGG_SCHEMA_REGISTRY_STATE', pidFiles: ['plain.pid', 'secure.pid'] }, log);
  } catch (err) {
    throw new Error(
      `the functional tests need a schema registry, and the local launcher failed (it builds one with Go once; .ci/run installs it): ${(err as Error).message}\n` +
        'Set SCHEMA_REGISTRY_URL=http://host:port to use a running registry, or run only the unit tests with `npm run test:unit`.',
      { cause: err },
    );
  }
  const tls = join(launched.state, 'tls');
  return {
    url: launched.address,
    source: 'local',
    secure: { url: (await readFile(join(launched.state, 'url-secure'), 'utf8')).trim(), ...tlsFiles(tls), ...LOCAL_REGISTRY_USER },
    stop: launched.stop,
  };
}

/** The variables that carry `registry` to the test processes. */
export function schemaRegistryEnv(registry: SchemaRegistry): Record<string, string> {
  return {
    [ENV.url]: registry.url,
    ...(registry.secure && { [ENV.secureUrl]: registry.secure.url, [ENV.secureTls]: dirname(registry.secure.ca) }),
  };
}

function tlsFiles(dir: string) {
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'client.crt'), key: join(dir, 'client.key') };
}

function secureFromEnv(): SecureRegistry | undefined {
  const url = process.env[ENV.secureUrl]?.trim();
  const tls = process.env[ENV.secureTls]?.trim();
  return url && tls ? { url, ...tlsFiles(tls), ...LOCAL_REGISTRY_USER } : undefined;
}

/**
 * The registries a functional test runs against (scripts/test.ts starts them for the whole run). Without
 * one, a test is skipped with the reason, except in CI, where that is a failure: CI never passes by skipping.
 */
export function schemaRegistryForTests(): { url: string; secure: SecureRegistry | undefined; skip: false } | { url: undefined; secure: undefined; skip: string } {
  const url = process.env[ENV.url]?.trim();
  if (url) return { url, secure: secureFromEnv(), skip: false };
  if (process.env.CI === 'true') throw new Error(`${ENV.url} is not set in CI: run the functional tests through \`npm test\`, which starts a schema registry`);
  return { url: undefined, secure: undefined, skip: `${ENV.url} is not set (\`npm test\` starts a registry; or ${ENV.url}=$(infra/dev/schema-registry start))` };
}
