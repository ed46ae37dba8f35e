// Who may open a connection (TCP, TLS, gRPC): at most `maxConnections` at once, at most `maxPerSource` from one
// address, and of those at most `maxConnections - reservedForKnown` from addresses that have not yet sent valid
// input (`trust`). An attacker who opens connections from new addresses, or holds them open without sending
// anything valid, therefore fills at most the unreserved slots, and a real exporter can still reconnect. A
// connection stops counting as unknown once its address is trusted, so a 5,000-Node cluster starting at once
// gets in: each Agent that has sent valid input frees its unreserved slot for the next. Connection addresses
// cannot be forged the way UDP source addresses can, so knowing an address means something here.
//
// An admission may be `within` another: the gRPC collector has its own limits (ingest.grpc) inside the budget
// it shares with the IPFIX stream listeners (ingest.tcp), so that the process's connections are one bound.
// Pure bookkeeping, O(1) per connection; listeners call admit() on accept and release() on close.
import { LruMap } from '../lru-map.js';

export interface AdmissionLimits {
  readonly maxConnections: number;
  readonly maxPerSource: number;
  readonly reservedForKnown: number;
  /** Addresses remembered as known; beyond, the least recently trusted is forgotten. */
  readonly maxKnown?: number;
  /** The configuration keys of the two limits, for refusal messages (ingest.tcp's by default). */
  readonly keys?: { readonly maxConnections: string; readonly maxPerSource: string };
}

export type RefusalReason = 'max_connections' | 'per_source' | 'reserved';

export type Admission =
  | { readonly admitted: true; release(): void }
  | { readonly admitted: false; readonly reason: RefusalReason; readonly message: string };

interface SourceCount {
  open: number;
  /** Of `open`, the connections admitted while the address was not known. */
  unknown: number;
}

const TCP_KEYS = { maxConnections: 'ingest.tcp.maxConnections', maxPerSource: 'ingest.tcp.maxConnectionsPerSource' };

export class ConnectionAdmission {
  readonly limits: AdmissionLimits;
  readonly #within: ConnectionAdmission | undefined;
  readonly #perSource = new Map<string, SourceCount>();
  /** Known addresses, least recently trusted first. */
  readonly #known = new LruMap<string, true>();
  #open = 0;
  #unknown = 0;

  constructor(limits: AdmissionLimits, within?: ConnectionAdmission) {
    this.limits = limits;
    this.#within = within;
  }

  get open(): number {
    return this.#open;
  }

  /** Connections open from addresses not known when they connected (and not trusted since). */
  get openUnknown(): number {
    return this.#unknown;
  }

  isKnown(address: string): boolean {
    return this.#known.has(address);
  }

  admit(address: string): Admission {
    const { maxConnections, maxPerSource, reservedForKnown } = this.limits;
    const keys = this.limits.keys ?? TCP_KEYS;
    const source = this.#perSource.get(address);
    const fromSource = source?.open ?? 0;
    const known = this.#known.has(address);
    if (this.#open >= maxConnections) return refuse('max_connections', `${this.#open} connections are open, the most allowed (${keys.maxConnections})`);
    if (fromSource >= maxPerSource) return refuse('per_source', `${address} has ${fromSource} connections open, the most one address may (${keys.maxPerSource})`);
    if (!known && this.#unknown >= maxConnections - reservedForKnown) {
      return refuse('reserved', `the remaining ${maxConnections - this.#open} connection slots are kept for exporters that have sent valid input before`);
    }
    const outer = this.#within?.admit(address);
    if (outer !== undefined && !outer.admitted) return outer;
    this.#open++;
    const count = source ?? { open: 0, unknown: 0 };
    count.open++;
    if (!known) {
      count.unknown++;
      this.#unknown++;
    }
    if (source === undefined) this.#perSource.set(address, count);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        outer?.release();
        this.#open--;
        if (count.unknown > 0) {
          count.unknown--;
          this.#unknown--;
        }
        if (--count.open === 0) this.#perSource.delete(address);
      },
    };
  }

  /** The address sent valid input: from now on it may use the reserved slots, and its open connections do. */
  trust(address: string): void {
    this.#within?.trust(address);
    if (!this.#known.has(address)) {
      const count = this.#perSource.get(address);
      if (count !== undefined) {
        this.#unknown -= count.unknown;
        count.unknown = 0;
      }
    }
    this.#known.set(address, true);
    if (this.#known.size > (this.limits.maxKnown ?? 65_536)) this.#known.shift();
  }
}

function refuse(reason: RefusalReason, message: string): Admission {
  return { admitted: false, reason, message };
}
