// The load shape of bench/executor: a closed loop of callers, each starting its next task when the last one ended.

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** `clients` callers each run `task` until `total` tasks have been started; throughput and latency percentiles. */
export async function closedLoop(total, clients, task) {
  const latencies = [];
  let started = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (started < total) {
        started++;
        const t = performance.now();
        await task();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), total, seconds, latencies };
}

/** Several closed-loop runs of one contender taken as one: tasks over time spent in them, percentiles over all calls. */
export function combineRuns(runs) {
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const latencies = runs.flatMap((run) => run.latencies);
  return { perSecond: total / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), total, seconds, latencies };
}
