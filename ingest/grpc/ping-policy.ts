// Client pings, bounded as grpc-go's server bounds them (Antrea's collector runs grpc-go with its defaults): a
// PING sooner than `minIntervalMs` after the previous one is a strike, and more than `maxStrikes` strikes end
// the connection with GOAWAY ENHANCE_YOUR_CALM "too_many_pings". Node's HTTP/2 answers every PING itself, so
// without this a peer could make the collector write a frame per frame it sends, for as long as it likes.
// Pure: the collector reports each PING and acts on the verdict.
export interface PingLimits {
  readonly minIntervalMs: number;
  readonly maxStrikes: number;
}

/** grpc-go's keepalive.EnforcementPolicy defaults (MinTime 5 min) and its fixed limit of 2 strikes. */
export const GRPC_GO_PING_LIMITS: PingLimits = { minIntervalMs: 5 * 60_000, maxStrikes: 2 };

export class PingPolicy {
  readonly #limits: PingLimits;
  #last: number | undefined;
  #strikes = 0;

  constructor(limits: PingLimits) {
    this.#limits = limits;
  }

  /** A PING arrived at `now`: false when the peer has pinged too often and is to be sent away. */
  received(now: number): boolean {
    if (this.#last !== undefined && now - this.#last < this.#limits.minIntervalMs) this.#strikes++;
    this.#last = now;
    return this.#strikes <= this.#limits.maxStrikes;
  }
}
