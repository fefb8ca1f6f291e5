/** Throughput and latency of one load run, whatever produced it. */
export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses that were not 200, and connection errors. */
  failures: number;
}

/** The value at `fraction` (0..1) of the sorted samples, by nearest rank. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank]!;
}

/** Figures from per-request latencies (ms) over a run of `elapsedMs`. */
export function figuresFromLatencies(latenciesMs: number[], elapsedMs: number, failures: number): LoadFigures {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    requestsPerSecond: (latenciesMs.length * 1000) / elapsedMs,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests: latenciesMs.length,
    failures,
  };
}
