// The IPFIX collector the chaos test's `flowagg export ipfix` sends to (collector-child.ts), with what it
// wrote read back: every message, session by session, decoded as the exporter's tests decode it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CollectedMessage } from '../../harness/collector.js';
import { readFrames } from './collector-file.js';
import { type Child, spawnTs } from '../../../lib/log/embedded/testing/spawn.js';

const CHILD = join(import.meta.dirname, 'collector-child.ts');

export class IpfixCollector {
  #child: Child | undefined;
  #runs = 0;
  #outages = 0;

  /** `stamped`: the file holds each message's receipt time too (collector-child.ts). */
  constructor(readonly port: number, readonly file: string, readonly stamped = false) {}

  /** Starts and stops one after the other: an outage that begins while the last one's collector is still starting waits for it. */
  #transition: Promise<void> = Promise.resolve();

  start(): Promise<void> {
    return this.#then(async () => {
      const child = (this.#child = spawnTs(CHILD, [String(this.port), this.file, String(this.#runs++), ...(this.stamped ? ['stamped'] : [])]));
      await child.waitForLine((l) => l === 'listening');
    });
  }

  #then(step: () => Promise<void>): Promise<void> {
    const next = this.#transition.then(step);
    this.#transition = next.catch(() => undefined);
    return next;
  }

  /**
   * An outage: stopped at the first of overlapping outages, started again at the end of the last (two
   * outages drawn close together each started a collector on the port otherwise).
   */
  async down(): Promise<void> {
    if (this.#outages++ === 0) await this.stop();
  }

  async up(): Promise<void> {
    if (--this.#outages === 0) await this.start();
  }

  /** A graceful stop: what the exporter sent before it saw the close is still received. */
  stop(): Promise<void> {
    return this.#then(async () => {
      const child = this.#child;
      this.#child = undefined;
      if (child === undefined) return;
      child.proc.kill('SIGTERM');
      await child.exited;
    });
  }

  /** Every message written so far, in arrival order within each session. */
  messages(): CollectedMessage[] {
    const out: CollectedMessage[] = [];
    readFrames(readFileSync(this.file), this.stamped, (m) => out.push(m));
    return out;
  }
}
