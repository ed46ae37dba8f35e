// Antrea's exporting process re-sends both templates over UDP every templateRefreshTimeout whether or not
// data flows, so that a collector that restarted, or lost a template datagram, decodes again within one
// interval. A batch that announced them itself moves the next announcement later (export-session.ts).
import type { ExportSession } from './export-session.js';

export interface TemplateRefreshOptions {
  readonly session: ExportSession;
  /** Writes the templates' message to the session's connection. */
  readonly send: (chunks: readonly Uint8Array[]) => Promise<void>;
  readonly now: () => number;
  /** The write failed: the session is given up (the next delivery opens a new one). */
  readonly onError: (err: unknown) => void;
}

export class TemplateRefresh {
  readonly #o: TemplateRefreshOptions;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(o: TemplateRefreshOptions) {
    this.#o = o;
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    const due = this.#o.session.refreshDueAt();
    if (due === undefined || this.#stopped) return;
    this.#timer = setTimeout(() => void this.#fire(), Math.max(0, due - this.#o.now()));
    // A timer alone does not keep the process up: stop() comes with the exporter's.
    this.#timer.unref();
  }

  async #fire(): Promise<void> {
    const due = this.#o.session.refreshDueAt();
    if (this.#stopped || due === undefined) return;
    if (this.#o.now() >= due) {
      try {
        await this.#o.send(this.#o.session.announce());
      } catch (err) {
        this.#o.onError(err);
        return;
      }
    }
    this.#arm();
  }
}
