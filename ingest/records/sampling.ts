// The sampling an exporter announced for one observation domain (or NetFlow v9 Source ID), so that each flow
// record can say it (FlowRecord.samplingInterval): per sampler when options records name samplers (v9's
// FLOW_SAMPLER_ID with FLOW_SAMPLER_RANDOM_INTERVAL, as Cisco sends them) and records carry a samplerId, and
// for the whole domain otherwise (v9's SAMPLING_INTERVAL in an options record scoped to the system, a v5
// header's sampling_interval, IPFIX's samplingPacketInterval and samplingPacketSpace). What a record says
// itself (samplingInterval in its own template) comes first; this is for the rest.

/** Samplers remembered per domain: samplerId is 1 byte in v9 and IPFIX, so more are not needed. */
const MAX_SAMPLERS = 256;

export class SamplingTable {
  /** 1 in this many packets for the whole domain, or -1 when not announced. */
  domainInterval = -1;
  readonly #samplers = new Map<number, number>();

  /** Records what an options record announced; `samplerId` -1 when it names no sampler. */
  announce(samplerId: number, interval: number): void {
    if (!(interval >= 1) || !Number.isSafeInteger(interval)) return;
    if (samplerId < 0) {
      this.domainInterval = interval;
      return;
    }
    if (this.#samplers.size >= MAX_SAMPLERS && !this.#samplers.has(samplerId)) this.#samplers.clear();
    this.#samplers.set(samplerId, interval);
  }

  /** The interval of a record sampled by `samplerId` (-1: the record names none); -1 when not known. */
  intervalOf(samplerId: number): number {
    return (samplerId >= 0 ? this.#samplers.get(samplerId) : undefined) ?? this.domainInterval;
  }
}
