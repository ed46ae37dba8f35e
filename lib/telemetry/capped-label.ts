// A metric label whose values come from the network (an exporter's address, a gRPC peer), so that its number
// of series is bounded: the first `max` distinct values are kept as they are and every later one is reported
// as OVERFLOW_LABEL. Prometheus series are never removed, so the bound is for the life of the process; a value
// is admitted only when the caller says so (e.g. once a source has sent valid input), so that packets from
// forged addresses cannot use up the slots.
export const OVERFLOW_LABEL = '_overflow';

export class CappedLabel {
  readonly max: number;
  readonly #admitted = new Set<string>();

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.#admitted.size;
  }

  /** The label for `value`: itself when admitted (or admitted now, when `admit` and there is room), else OVERFLOW_LABEL. */
  of(value: string, admit = true): string {
    if (this.#admitted.has(value)) return value;
    if (admit && this.#admitted.size < this.max) {
      this.#admitted.add(value);
      return value;
    }
    return OVERFLOW_LABEL;
  }
}
