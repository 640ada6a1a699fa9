/** Bounds of one run; every field has a default. */
export interface ScriptLimits {
  /** Bytes of stdout accepted before the run is killed (default 1 MiB). */
  maxStdoutBytes?: number;
  /** Bytes of stderr kept, the tail (default 64 KiB); stderr beyond it is read and dropped. */
  maxStderrBytes?: number;
  /** Processes and threads of the script together (default 64); bubblewrap isolation only. */
  maxProcesses?: number;
  /** Private writable memory per process, MiB (RLIMIT_DATA, default 512). */
  maxMemoryMb?: number;
}

const DEFAULT_LIMITS: Readonly<Required<ScriptLimits>> = {
  maxStdoutBytes: 1024 * 1024,
  maxStderrBytes: 64 * 1024,
  maxProcesses: 64,
  maxMemoryMb: 512,
};

/** The request's limits with defaults filled in; a limit that is not a positive integer is a caller bug. */
export function resolveLimits(limits: ScriptLimits = {}): Required<ScriptLimits> {
  const resolved = { ...DEFAULT_LIMITS, ...stripUndefined(limits) };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`limits.${key} must be a positive integer, got ${value}`);
  }
  return resolved;
}

/**
 * `prlimit` (util-linux) arguments that set the limits and exec the interpreter.
 *
 * Memory is RLIMIT_DATA, not RLIMIT_AS: V8 reserves gigabytes of address space it never touches, so node
 * does not even start under an RLIMIT_AS of 256 MiB, while RLIMIT_DATA counts only private writable
 * memory and stops python's and node's large allocations alike (MemoryError, "Array buffer allocation
 * failed"). It does not count shared mappings.
 *
 * RLIMIT_NPROC is only set inside bubblewrap, where it works for two reasons measured on this machine:
 * the kernel ignores it for uid 0 (even mapped to another uid in a user namespace), so the sandbox runs
 * as an unprivileged uid; and when it is set after bwrap made the user namespace, the kernel counts only
 * that namespace's processes, not every process of the uid on the host. `processLimit` counts the
 * script's processes and threads plus bwrap's reaper (PID 1 of the namespace).
 */
export function prlimitCommand(prlimit: string, limits: Required<ScriptLimits>, withProcessLimit: boolean): string[] {
  const args = [prlimit, `--data=${limits.maxMemoryMb * 1024 * 1024}`, '--core=0'];
  if (withProcessLimit) args.push(`--nproc=${limits.maxProcesses + 1}`);
  args.push('--');
  return args;
}

function stripUndefined(limits: ScriptLimits): ScriptLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
