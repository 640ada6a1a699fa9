import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import type { ProgramDiagnostics } from './tool-failure.js';

export interface RunProgramOptions {
  /** Executable (absolute path or a name looked up in PATH); never run through a shell. */
  command: string;
  args: readonly string[];
  /** Working directory: the call's scratch directory. */
  cwd: string;
  /** Kill the program (and everything it started) after this long. */
  timeoutMs: number;
  /** Kill the program when stdout + stderr exceed this many bytes. */
  maxOutputBytes: number;
  /** Kill the program when this aborts (the MCP request was cancelled or the client went away). */
  signal?: AbortSignal;
  /** Extra environment variables on top of the minimal environment the program gets. */
  env?: Record<string, string>;
}

export interface ProgramRun {
  exitCode: number | null;
  /** Signal that ended the program, if any (SIGKILL after a timeout, cancellation or output overflow). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  outputLimitExceeded: boolean;
  /** The program could not be started at all (e.g. ENOENT). */
  spawnError: string | null;
}

/** Seconds the OS-level limit (coreutils `timeout`) leaves after the adapter's own limit before it kills. */
const HARD_LIMIT_GRACE_SECONDS = 2;

let timeoutUtility: string | null | undefined;
/** coreutils `timeout`, when installed: it kills the program at its limit even if the adapter itself dies. */
function findTimeoutUtility(): string | null {
  if (timeoutUtility === undefined) {
    timeoutUtility =
      ['/usr/bin/timeout', '/bin/timeout'].find((path) => {
        try {
          accessSync(path, constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }) ?? null;
  }
  return timeoutUtility;
}

/** Variables passed through to programs; everything else of the adapter's environment stays out. */
const PASSED_ENV = ['PATH', 'LANG', 'LC_ALL', 'OMP_NUM_THREADS', 'CCX_NPROC_EQUATION_SOLVER', 'CCX_NPROC_STIFFNESS', 'CCX_NPROC_RESULTS'];

/**
 * Run a program without a shell, in its own process group, with a time limit, an output limit and cancellation.
 * On timeout, output overflow or abort the whole process group is killed with SIGKILL. Never rejects for the
 * program's own failures: the caller reads the ProgramRun.
 */
export function runProgram(options: RunProgramOptions): Promise<ProgramRun> {
  const started = performance.now();
  const env: Record<string, string> = { HOME: options.cwd, TMPDIR: options.cwd };
  for (const name of PASSED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, options.env);

  return new Promise<ProgramRun>((resolvePromise) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let timedOut = false;
    let cancelled = false;
    let outputLimitExceeded = false;
    let spawnError: string | null = null;
    let settled = false;

    // Under coreutils `timeout` when available, so a program outlives a crashed or killed adapter by at most its limit.
    const hardLimit = findTimeoutUtility();
    const [command, args] = hardLimit
      ? [hardLimit, ['-s', 'KILL', `${Math.ceil(options.timeoutMs / 1000) + HARD_LIMIT_GRACE_SECONDS}s`, options.command, ...options.args]]
      : [options.command, [...options.args]];
    const child = spawn(command, args, {
      cwd: options.cwd,
      env,
      shell: false,
      detached: true, // own process group, so a kill reaches everything the program started
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > options.maxOutputBytes) {
        if (!outputLimitExceeded) {
          outputLimitExceeded = true;
          killGroup();
        }
        return;
      }
      sink.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      killGroup(); // leftovers of the group, if the program started helpers
      resolvePromise({
        exitCode,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        durationMs: performance.now() - started,
        timedOut,
        cancelled,
        outputLimitExceeded,
        spawnError,
      });
    };
    child.on('error', (error) => {
      spawnError = error.message;
      finish(null, null);
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/** The last `count` non-empty lines of a program's output. */
function tailLines(text: string, count = 20): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim().length > 0);
  return lines.slice(-count).map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line));
}

/** Exit status and the tail of both output streams, for isError results. */
export function diagnosticsOf(run: ProgramRun, lines = 20): ProgramDiagnostics {
  return {
    exit_code: run.exitCode,
    signal: run.signal,
    stderr_tail: tailLines(run.stderr, lines),
    stdout_tail: tailLines(run.stdout, lines),
  };
}
