import type { ChildProcess } from 'node:child_process';
import { BoundedOutput, StreamTail } from './output-capture.js';
import { signalGroup } from './process-signals.js';

/** Why a supervised process ended. */
type RunEndKind = 'exited' | 'timeout' | 'output_too_large' | 'cancelled' | 'spawn_failed';

export interface RunEnd {
  kind: RunEndKind;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderrTail: string;
  spawnError: Error | null;
}

export interface SupervisionOptions {
  /** Written to stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  signal?: AbortSignal;
  cancelGraceMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Asks the script to stop (SIGTERM); the group is killed `cancelGraceMs` later if it is still there. */
  requestStop: (pid: number) => Promise<unknown>;
}

/** After the process exits, how long its pipes may stay open (held by an escaped descendant) before they are cut. */
const PIPE_DRAIN_MS = 1000;

/**
 * Feeds a spawned, detached child its input, bounds its output and ends it on timeout, overflow or
 * cancellation. Every kill is SIGKILL to the whole process group, never to the one pid.
 */
export function superviseProcess(child: ChildProcess, options: SupervisionOptions): Promise<RunEnd> {
  return new Promise<RunEnd>((resolve) => {
    const stdout = new BoundedOutput(options.maxStdoutBytes);
    const stderr = new StreamTail(options.maxStderrBytes);
    let stopReason: Exclude<RunEndKind, 'exited' | 'spawn_failed'> | null = null;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let spawnError: Error | null = null;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = () => {
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    };
    const stop = (reason: NonNullable<typeof stopReason>) => {
      if (exit !== null) return;
      stopReason ??= reason;
      killGroup();
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        kind: spawnError ? 'spawn_failed' : (stopReason ?? 'exited'),
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.bytes(),
        stderrTail: stderr.text(),
        spawnError,
      });
    };
    const onAbort = () => {
      if (exit !== null || stopReason !== null || child.pid === undefined) return;
      stopReason = 'cancelled';
      options.requestStop(child.pid).catch(killGroup);
      graceTimer = setTimeout(killGroup, options.cancelGraceMs);
    };

    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdout.push(chunk)) return;
      stop('output_too_large');
      child.stdout?.destroy();
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A script may exit without reading its input: the write then fails with EPIPE, which is not an error of the run.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
    child.on('error', (error) => {
      spawnError = error;
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      clearTimeout(timer);
      clearTimeout(graceTimer);
      // What the script left running in its group (without bubblewrap, a background job) ends with it.
      killGroup();
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_DRAIN_MS);
    });
    child.on('close', finish);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
