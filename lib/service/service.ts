// What every service shows the program that runs it (serve, the supervisor): the anatomy of issue 16.
// Each service also has a configuration schema with its defaults, an inert create(config, deps), its
// metrics and its errors, next to it; its lifecycle is lifecycle.ts.
import type { Readiness, ServiceState } from './lifecycle.js';

export interface Service {
  /** For logs and readiness checks: `ingest`, `processor`, `export.clickhouse`, `flowstream`. */
  readonly name: string;
  readonly state: ServiceState;
  start(): Promise<void>;
  stop(): Promise<void>;
  readiness(): Readiness;
  /** Told when the running service failed for good (a consumer that will not restart, say). */
  onFailure(listener: (err: unknown) => void): void;
}
