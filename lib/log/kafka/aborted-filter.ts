// Which fetched records belong to aborted transactions, as Kafka's Java consumer decides it (Fetcher):
// every aborted transaction whose first offset a record has reached marks its producer as aborting,
// until that producer's abort marker. kafkajs 2.2.4's filterAbortedMessages marks at most one
// transaction per record it walks, so a fetch that starts inside several producers' aborted transactions
// (outputs of several processor tasks interleaved on one partition, all aborted by one crash) lets the
// first records of all but one through: read_committed readers saw aborted records. This replaces it.
export interface AbortedTransaction {
  readonly producerId: string;
  readonly firstOffset: string;
}

export interface FetchedMessage {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly batchContext: { readonly producerId: string; readonly inTransaction: boolean; readonly isControlBatch: boolean };
}

/** A control record's key: version 0 and type 0 (abort); 1 is commit. */
const isAbortMarker = (m: FetchedMessage): boolean => m.batchContext.isControlBatch && m.key !== null && m.key.length >= 4 && m.key.readInt16BE(2) === 0;

export function filterAbortedMessages<M extends FetchedMessage>({ messages, abortedTransactions }: { messages: M[]; abortedTransactions?: readonly AbortedTransaction[] }): M[] {
  if (abortedTransactions === undefined || abortedTransactions.length === 0) return messages;
  const pending = abortedTransactions.map((t) => ({ producerId: t.producerId, firstOffset: BigInt(t.firstOffset) })).sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
  const aborting = new Set<string>();
  return messages.filter((m) => {
    const offset = BigInt(m.offset);
    while (pending.length > 0 && offset >= pending[0]!.firstOffset) aborting.add(pending.shift()!.producerId);
    const { producerId, inTransaction } = m.batchContext;
    if (isAbortMarker(m)) {
      aborting.delete(producerId);
      return true;
    }
    return !(inTransaction && aborting.has(producerId));
  });
}
