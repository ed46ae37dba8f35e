// The calls between a served log (serve.ts, the thread that owns the log) and its client (client.ts, a
// worker thread). The client opens producers, transactions, consumers and readers on the owner and names
// them by the handle the owner answered; a consumer's deliveries are the owner's calls to the client.
export const OWNER = {
  producer: 'producer', send: 'send', sendRuns: 'sendRuns', closeProducer: 'closeProducer',
  transactional: 'transactional', begin: 'begin', txnSend: 'txnSend', sendOffsets: 'sendOffsets', commit: 'commit', abort: 'abort', closeTransactional: 'closeTransactional',
  consumer: 'consumer', subscribe: 'subscribe', run: 'run', commitOffsets: 'commitOffsets', seek: 'seek', pause: 'pause', resume: 'resume', stop: 'stop',
  reader: 'reader', fetch: 'fetch', closeReader: 'closeReader',
  admin: 'admin',
  close: 'close',
} as const;

export const CLIENT = { batch: 'batch', assign: 'assign', revoke: 'revoke', failure: 'failure' } as const;

export type Handle = number;

const seekKey = (tp: { readonly topic: string; readonly partition: number }): string => `${tp.topic}\u0000${tp.partition}`;

/**
 * Per partition, the seeks counted so far: the ones the client made, or the ones the owner received, which
 * every batch it sends carries. A batch counting fewer than the client made was fetched before its last
 * seek (client-consumer.ts).
 */
export class SeekCounts {
  readonly #counts = new Map<string, number>();

  of(tp: { readonly topic: string; readonly partition: number }): number {
    return this.#counts.get(seekKey(tp)) ?? 0;
  }

  count(tp: { readonly topic: string; readonly partition: number }): void {
    this.#counts.set(seekKey(tp), this.of(tp) + 1);
  }
}
