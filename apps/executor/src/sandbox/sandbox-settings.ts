import type { HandlerProcessLimits } from './handler-launcher.js';
import type { SandboxPoolOptions } from './sandbox-pool.js';

/** The sandbox settings of the executor's configuration (also used by `skill-registry test`, with its defaults). */
export interface SandboxSettings {
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

export function handlerProcessLimits(settings: SandboxSettings): HandlerProcessLimits {
  return {
    memoryMb: settings.SANDBOX_MEMORY_MB,
    addressSpaceMb: settings.SANDBOX_ADDRESS_SPACE_MB,
    maxProcesses: MAX_PROCESSES_PER_SANDBOX,
    maxOpenFiles: MAX_OPEN_FILES,
    maxFileMb: MAX_FILE_MB,
    cpuSeconds: settings.SANDBOX_CPU_SECONDS,
  };
}

export function sandboxPoolOptions(settings: SandboxSettings): SandboxPoolOptions {
  return {
    maxProcesses: settings.SANDBOX_MAX_PROCESSES,
    cancelGraceMs: settings.CANCEL_GRACE_MS,
    maxRunsPerProcess: settings.SANDBOX_RUNS_PER_PROCESS,
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
