// CPU accounting for benchmarks (Linux /proc): how many CPU milliseconds each process spent.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;

/** Fields of /proc/<pid>/stat from the state on (field 3 is [0]); null if the process is gone. */
function statFields(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/** CPU ms used so far by one process (all its threads); 0 if it is gone. */
export function cpuMs(pid) {
  const fields = statFields(pid);
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS : 0;
}

/** CPU ms of the children of a process that have ended and that it has waited for (cutime + cstime); 0 if it is gone. */
export function endedChildrenCpuMs(pid) {
  const fields = statFields(pid);
  return fields ? ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS : 0;
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
 * CPU ms of Postgres's ended backends (connections closed, autovacuum workers done meanwhile): they are the postmaster's
 * children, the oldest process named postgres. Counted with the live ones (pidsOf('postgres')) so none is lost.
 */
export function endedPostgresCpuMs() {
  try {
    return endedChildrenCpuMs(Number(execSync('pgrep -o -x postgres').toString().trim()));
  } catch {
    return 0;
  }
}

/**
 * Measures CPU per unit of work: `sources` maps a label to a function returning the pids to count, `ended` a label to
 * a function returning CPU ms of processes of that label that are gone (endedChildrenCpuMs).
 * Call start(), do the work, then perUnit(units) for { label: ms per unit, total }.
 */
export function cpuMeter(sources, ended = {}) {
  const read = () =>
    Object.fromEntries(
      Object.entries(sources).map(([label, pids]) => [label, pids().reduce((sum, pid) => sum + cpuMs(pid), 0) + (ended[label]?.() ?? 0)]),
    );
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
  return cpuMeter(
    {
      registry: () => [registryPid],
      executor: () => [executorPid],
      // The executor's sandbox processes (handler runs), outside the executor since issue 23.
      sandbox: () => pidsOf('sandbox-host'),
      client: () => [process.pid],
      redis: () => pidsOf('redis-server'),
      postgres: () => pidsOf('postgres'),
    },
    // Sandbox processes recycled meanwhile (SANDBOX_RUNS_PER_PROCESS) are gone from the list at the end: their CPU is
    // in the executor's count of its ended children (bubblewrap waits for the process, the executor for bubblewrap).
    { sandbox: () => endedChildrenCpuMs(executorPid), postgres: endedPostgresCpuMs },
  );
}

/** "total 2.61 ms (registry 0.70, executor 0.90, ...)". */
export function formatCpu(perUnit) {
  const parts = Object.entries(perUnit)
    .filter(([label]) => label !== 'total')
    .map(([label, ms]) => `${label} ${ms.toFixed(2)}`);
  return `${perUnit.total.toFixed(2)} ms (${parts.join(', ')})`;
}
