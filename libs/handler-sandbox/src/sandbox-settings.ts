import { z } from 'zod';
import type { HandlerProcessLimits } from './handler-launcher.js';
import type { HandlerSandboxPoolOptions } from './sandbox-pool.js';

const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The environment variables of the handler sandbox, for the executor's configuration and `skill-registry test`. */
export const SANDBOX_VARIABLES = {
  /**
   * How TypeScript handlers are isolated: `bubblewrap` (default; a sandbox process per package) or
   * `none`, the operator's explicit opt-out (a plain child process, logged loudly at start).
   */
  HANDLER_SANDBOX: z.enum(['bubblewrap', 'none'], { message: "HANDLER_SANDBOX must be 'bubblewrap' or 'none'" }).default('bubblewrap'),
  /** After a cancellation, how long a handler may take to return before its process is stopped. */
  CANCEL_GRACE_MS: positiveInt(0, 60_000).default(1000),
  /** Most sandbox processes at once, across packages (each runs one handler at a time); default 2 × concurrency. */
  SANDBOX_MAX_PROCESSES: positiveInt(1, 1024).optional(),
  /**
   * Runs one sandbox process serves at most before it is replaced (a start costs a few hundred ms of CPU: at 1000,
   * a steady stream of quick runs spent a fifth of its throughput starting processes). A process whose heap has
   * grown to half of SANDBOX_MEMORY_MB is replaced sooner.
   */
  SANDBOX_RUNS_PER_PROCESS: positiveInt(1, 1_000_000).default(10_000),
  /** A sandbox process idle this long is ended. */
  SANDBOX_IDLE_MS: positiveInt(100, 3_600_000).default(60_000),
  /** V8 heap limit (old generation) of each sandbox process. */
  SANDBOX_MEMORY_MB: positiveInt(32, 8192).default(256),
  /** Address space of each sandbox process (RLIMIT_AS); default 1 GiB plus 4 × SANDBOX_MEMORY_MB. */
  SANDBOX_ADDRESS_SPACE_MB: positiveInt(256, 65_536).optional(),
  /** CPU time of a sandbox process over its life (RLIMIT_CPU); it is replaced at half of it. */
  SANDBOX_CPU_SECONDS: positiveInt(1, 86_400).default(600),
  /** Largest message a sandbox process may send (a handler's result, a twin write). */
  SANDBOX_MAX_MESSAGE_MB: positiveInt(1, 1024).default(64),
  /** Bytes a handler may write to stdout and stderr per run before its process is stopped. */
  SANDBOX_MAX_OUTPUT_KB: positiveInt(1, 1_048_576).default(1024),
};

type ParsedSandboxVariables = z.output<z.ZodObject<typeof SANDBOX_VARIABLES>>;

/** The defaults that depend on other settings: process count from the concurrency, address space from the heap. */
export function withSandboxDefaults<T extends ParsedSandboxVariables>(
  parsed: T,
  concurrency: number,
): T & { SANDBOX_MAX_PROCESSES: number; SANDBOX_ADDRESS_SPACE_MB: number } {
  return {
    ...parsed,
    // Twice the concurrency: runs of several packages overlap without ending each other's idle processes.
    SANDBOX_MAX_PROCESSES: parsed.SANDBOX_MAX_PROCESSES ?? 2 * concurrency,
    SANDBOX_ADDRESS_SPACE_MB: parsed.SANDBOX_ADDRESS_SPACE_MB ?? 1024 + 4 * parsed.SANDBOX_MEMORY_MB,
  };
}

/** The sandbox settings from environment variables; throws an Error naming each bad variable. */
export function sandboxSettingsFrom(
  env: Record<string, string | undefined>,
  concurrency: number,
): HandlerSandboxSettings & { HANDLER_SANDBOX: 'bubblewrap' | 'none' } {
  const parsed = z.object(SANDBOX_VARIABLES).safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid sandbox configuration: ${problems.join('; ')}`);
  }
  return withSandboxDefaults(parsed.data, concurrency);
}

/** The sandbox settings of the executor's configuration (also used by `skill-registry test`, with its defaults). */
export interface HandlerSandboxSettings {
  SANDBOX_MAX_PROCESSES: number;
  SANDBOX_RUNS_PER_PROCESS: number;
  SANDBOX_IDLE_MS: number;
  SANDBOX_MEMORY_MB: number;
  SANDBOX_ADDRESS_SPACE_MB: number;
  SANDBOX_CPU_SECONDS: number;
  SANDBOX_MAX_MESSAGE_MB: number;
  SANDBOX_MAX_OUTPUT_KB: number;
  CANCEL_GRACE_MS: number;
}

/** Processes and threads of one sandbox: node's own dozen threads and a little room, never a fork bomb. */
const MAX_PROCESSES_PER_SANDBOX = 32;
const MAX_OPEN_FILES = 256;
const MAX_FILE_MB = 64;
/** Frames per second a sandbox may send (log lines, tool and twin calls), and its calls in flight. */
const MAX_MESSAGES_PER_SECOND = 2000;
const MAX_PENDING_CALLS = 64;

export function handlerProcessLimits(settings: HandlerSandboxSettings): HandlerProcessLimits {
  return {
    memoryMb: settings.SANDBOX_MEMORY_MB,
    addressSpaceMb: settings.SANDBOX_ADDRESS_SPACE_MB,
    maxProcesses: MAX_PROCESSES_PER_SANDBOX,
    maxOpenFiles: MAX_OPEN_FILES,
    maxFileMb: MAX_FILE_MB,
    cpuSeconds: settings.SANDBOX_CPU_SECONDS,
  };
}

export function sandboxPoolOptions(settings: HandlerSandboxSettings): HandlerSandboxPoolOptions {
  return {
    maxProcesses: settings.SANDBOX_MAX_PROCESSES,
    cancelGraceMs: settings.CANCEL_GRACE_MS,
    maxRunsPerProcess: settings.SANDBOX_RUNS_PER_PROCESS,
    heapLimitMb: settings.SANDBOX_MEMORY_MB,
    idleMs: settings.SANDBOX_IDLE_MS,
    cpuSeconds: settings.SANDBOX_CPU_SECONDS,
    bounds: {
      maxFrameBytes: settings.SANDBOX_MAX_MESSAGE_MB * 1024 * 1024,
      maxOutputBytes: settings.SANDBOX_MAX_OUTPUT_KB * 1024,
      maxMessagesPerSecond: MAX_MESSAGES_PER_SECOND,
      maxPendingCalls: MAX_PENDING_CALLS,
    },
  };
}
