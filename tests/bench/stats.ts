export interface Summary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Percentiles by the nearest-rank method, in milliseconds. */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error('No samples to summarize.');
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return {
    count: sorted.length,
    p50: rank(50),
    p95: rank(95),
    p99: rank(99),
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    min: sorted[0]!,
    max: sorted.at(-1)!,
  };
}

export function formatRow(label: string, summary: Summary): string {
  const ms = (value: number) => `${value.toFixed(2).padStart(8)} ms`;
  return `${label.padEnd(52)} ${String(summary.count).padStart(5)}  p50 ${ms(summary.p50)}  p95 ${ms(summary.p95)}  mean ${ms(summary.mean)}`;
}
