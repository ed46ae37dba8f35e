// The nearest-rank quantile the tests and benchmarks report latencies by (p50, p99): the smallest value
// with at least q of them at or below it.

/** The q-quantile (0..1) of the values, NaN when there are none. */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))]!;
}
