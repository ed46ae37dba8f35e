// How many log-reading queries (flow search, flow view, path view) run at once: at most `total`, and
// `perClient` from one address; one more is refused at once (429) rather than queued, so that a client
// cannot pile work up behind itself.
import { BusyError } from './query-params.js';
import { explorerMetrics } from './metrics.js';

export class QueryGate {
  #running = 0;
  readonly #perClient = new Map<string, number>();

  constructor(private readonly limits: { readonly total: number; readonly perClient: number }) {}

  async run<T>(client: string, query: () => Promise<T>): Promise<T> {
    const mine = this.#perClient.get(client) ?? 0;
    if (this.#running >= this.limits.total) {
      explorerMetrics.refused.inc({ reason: 'total' });
      throw new BusyError(`${this.limits.total} queries read the log already (explorer.maxQueries): try again shortly`);
    }
    if (mine >= this.limits.perClient) {
      explorerMetrics.refused.inc({ reason: 'client' });
      throw new BusyError(`${this.limits.perClient} queries from ${client} read the log already (explorer.maxQueriesPerClient)`);
    }
    this.#running++;
    this.#perClient.set(client, mine + 1);
    try {
      return await query();
    } finally {
      this.#running--;
      const left = this.#perClient.get(client)! - 1;
      if (left === 0) this.#perClient.delete(client);
      else this.#perClient.set(client, left);
    }
  }
}
