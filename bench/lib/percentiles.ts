/** Latency figures of one measured run, in milliseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest rank: the smallest value with at least p% of the values at or below it. */
function nearestRank(sorted: readonly number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** The nearest-rank percentile (`p` from 0 to 100) of unsorted values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  return nearestRank(
    [...values].sort((a, b) => a - b),
    p,
  );
}

/** Count, mean, p50, p95, p99 and max of unsorted latencies, every percentile exact (nearest rank). */
export function summariseLatencies(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    mean: sorted.length ? sorted.reduce((sum, value) => sum + value, 0) / sorted.length : Number.NaN,
    p50: nearestRank(sorted, 50),
    p95: nearestRank(sorted, 95),
    p99: nearestRank(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}
