// Who may open a connection (TCP, TLS, gRPC): at most `maxConnections` at once, at most `maxPerSource` from one
// address, and `reservedForKnown` of the slots only for addresses that have sent valid input before (`trust`).
// An attacker who opens connections from new addresses, or holds them open without sending anything valid,
// therefore fills at most the unreserved slots, and a real exporter can still reconnect. Connection addresses
// cannot be forged the way UDP source addresses can, so knowing an address means something here.
// Pure bookkeeping, O(1) per connection; listeners call admit() on accept and release() on close.
import { LruMap } from '../../lib/lru-map.js';

export interface AdmissionLimits {
  readonly maxConnections: number;
  readonly maxPerSource: number;
  readonly reservedForKnown: number;
  /** Addresses remembered as known; beyond, the least recently trusted is forgotten. */
  readonly maxKnown?: number;
}

export type RefusalReason = 'max_connections' | 'per_source' | 'reserved';

export type Admission =
  | { readonly admitted: true; release(): void }
  | { readonly admitted: false; readonly reason: RefusalReason; readonly message: string };

export class ConnectionAdmission {
  readonly limits: AdmissionLimits;
  readonly #perSource = new Map<string, number>();
  /** Known addresses, least recently trusted first. */
  readonly #known = new LruMap<string, true>();
  #open = 0;

  constructor(limits: AdmissionLimits) {
    this.limits = limits;
  }

  get open(): number {
    return this.#open;
  }

  isKnown(address: string): boolean {
    return this.#known.has(address);
  }

  admit(address: string): Admission {
    const { maxConnections, maxPerSource, reservedForKnown } = this.limits;
    const fromSource = this.#perSource.get(address) ?? 0;
    if (this.#open >= maxConnections) return refuse('max_connections', `${this.#open} connections are open, the most allowed (ingest.tcp.maxConnections)`);
    if (fromSource >= maxPerSource) return refuse('per_source', `${address} has ${fromSource} connections open, the most one address may (ingest.tcp.maxConnectionsPerSource)`);
    if (!this.#known.has(address) && this.#open >= maxConnections - reservedForKnown) {
      return refuse('reserved', `the remaining ${maxConnections - this.#open} connection slots are kept for exporters that have sent valid IPFIX before`);
    }
    this.#open++;
    this.#perSource.set(address, fromSource + 1);
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.#open--;
        const n = (this.#perSource.get(address) ?? 1) - 1;
        if (n === 0) this.#perSource.delete(address);
        else this.#perSource.set(address, n);
      },
    };
  }

  /** The address sent valid input: from now on it may use the reserved slots. */
  trust(address: string): void {
    this.#known.set(address, true);
    if (this.#known.size > (this.limits.maxKnown ?? 65_536)) this.#known.shift();
  }
}

function refuse(reason: RefusalReason, message: string): Admission {
  return { admitted: false, reason, message };
}
