// CPU accounting for benchmarks (Linux /proc): how many CPU milliseconds each process spent.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;

/** CPU ms used so far by one process (all its threads); 0 if it is gone. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Pids whose command line matches `pattern` (pgrep -f). */
export function pidsOf(pattern) {
  try {
    return execSync(`pgrep -f ${pattern}`).toString().trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

/**
 * Measures CPU per unit of work: `sources` maps a label to a function returning the pids to count.
 * Call start(), do the work, then perUnit(units) for { label: ms per unit, total }.
 */
export function cpuMeter(sources) {
  const read = () =>
    Object.fromEntries(Object.entries(sources).map(([label, pids]) => [label, pids().reduce((sum, pid) => sum + cpuMs(pid), 0)]));
  let before = null;
  return {
    start() {
      before = read();
    },
    perUnit(units) {
      const after = read();
      const result = {};
      let total = 0;
      for (const label of Object.keys(sources)) {
        result[label] = (after[label] - before[label]) / units;
        total += result[label];
      }
      result.total = total;
      return result;
    },
  };
}

/** The processes of one end-to-end execution: the registry and executor children, the sandboxes, this client, Redis and Postgres. */
export function executionCpuMeter(registryPid, executorPid) {
  return cpuMeter({
    registry: () => [registryPid],
    executor: () => [executorPid],
    // The executor's sandbox processes (handler runs), outside the executor since issue 23.
    sandbox: () => pidsOf('sandbox-host'),
    client: () => [process.pid],
    redis: () => pidsOf('redis-server'),
    postgres: () => pidsOf('postgres'),
  });
}

/** "total 2.61 ms (registry 0.70, executor 0.90, ...)". */
export function formatCpu(perUnit) {
  const parts = Object.entries(perUnit)
    .filter(([label]) => label !== 'total')
    .map(([label, ms]) => `${label} ${ms.toFixed(2)}`);
  return `${perUnit.total.toFixed(2)} ms (${parts.join(', ')})`;
}
