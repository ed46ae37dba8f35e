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

/**
 * A partition's key in the count of seeks received, which every batch the owner sends carries: a batch
 * that counts fewer seeks than the client made was fetched from before the last one (client-consumer.ts).
 */
export const seekKey = (tp: { readonly topic: string; readonly partition: number }): string => `${tp.topic}\u0000${tp.partition}`;
