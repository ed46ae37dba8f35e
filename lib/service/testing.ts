// A test double of a service: starts and stops on the real lifecycle, records its calls, and fails when
// told (at start, or at runtime through crash()).
import { FlowaggError } from '../errors.js';
import { componentLogger } from '../telemetry/logger.js';
import { Lifecycle, type Readiness } from './lifecycle.js';
import type { Service } from './service.js';

export const FAKE_SERVICE_STATE = 'FLOWAGG_ERR_TEST_FAKE_SERVICE_STATE';

export interface FakeServiceOptions {
  /** Rejects start() with this error. */
  readonly startError?: unknown;
  /** Rejects the cleanup after a failed start with this error. */
  readonly cleanupError?: unknown;
  /** Appended to as calls happen: `<name>.start`, `<name>.stop`, `<name>.cleanup`. */
  readonly calls?: string[];
}

export class FakeService implements Service {
  readonly lifecycle: Lifecycle;

  constructor(
    readonly name: string,
    private readonly opts: FakeServiceOptions = {},
  ) {
    this.lifecycle = new Lifecycle(name, FAKE_SERVICE_STATE, componentLogger(name));
  }

  get state() {
    return this.lifecycle.state;
  }

  start(): Promise<void> {
    return this.lifecycle.start(
      async () => {
        this.opts.calls?.push(`${this.name}.start`);
        if (this.opts.startError !== undefined) throw this.opts.startError;
      },
      async () => {
        this.opts.calls?.push(`${this.name}.cleanup`);
        if (this.opts.cleanupError !== undefined) throw this.opts.cleanupError;
      },
    );
  }

  stop(): Promise<void> {
    return this.lifecycle.stop(async () => void this.opts.calls?.push(`${this.name}.stop`));
  }

  readiness(): Readiness {
    return this.lifecycle.readiness();
  }

  onFailure(listener: (err: unknown) => void): void {
    this.lifecycle.onFailure(listener);
  }

  /** A runtime failure, as a consumer that died would report it. */
  crash(message = `${this.name} crashed`): void {
    this.lifecycle.fail(new FlowaggError(FAKE_SERVICE_STATE, message));
  }
}
