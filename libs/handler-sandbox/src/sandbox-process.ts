import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { signalGroup, StreamTail, type RunAs } from '#script-sandbox/index.js';
import type { ExecutionError } from '#executions/index.js';
import { FrameChannel } from './frame-channel.js';
import {
  handlerErrorOf,
  parseFromSandbox,
  type FromSandbox,
  type InspectRequest,
  type RunRequest,
  type ToSandbox,
  type ToolReplyBody,
} from './sandbox-protocol.js';

/** How to start one sandbox process (see HandlerLauncher). */
export interface ProcessSpawn {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  runAs: RunAs | null;
  /** The package's directory as the process sees it (/skill inside bubblewrap). */
  packagePathInside: string;
  /** Called once the process is gone (its scratch directory can go). */
  cleanUp: () => Promise<void>;
}

/** Bounds on what a process may send; passing one ends it with RESOURCE_EXHAUSTED. */
export interface ProcessBounds {
  maxFrameBytes: number;
  /** Bytes of stdout and stderr together per run (and between runs). */
  maxOutputBytes: number;
  /** Frames per second, sustained (twice that as a burst). */
  maxMessagesPerSecond: number;
  /** Tool and twin calls of one run in flight at once. */
  maxPendingCalls: number;
}

/** What one run of a process needs from the pool: its limits and who serves its calls. */
export interface ProcessRunHandlers {
  timeoutMs: number;
  signal: AbortSignal;
  cancelGraceMs: number;
  onToolCall: (op: 'invoke' | 'isAvailable' | 'listTools', args: unknown[]) => Promise<ToolReplyBody>;
  onTwinCall: (op: string, args: unknown[]) => Promise<ToolReplyBody>;
  onLog: (level: string, message: string, fields: Record<string, unknown>) => void;
}

export type HandlerSandboxOutcome = { ok: true; output: Record<string, unknown> } | { ok: false; error: ExecutionError };

/** What an inspection process reported of a package's code (parsed and bounded by parseFromSandbox). */
export type PackageCodeInspection = Pick<Extract<FromSandbox, { type: 'inspected' }>, 'inputJsonSchema' | 'outputJsonSchema' | 'issues'>;
export type InspectionOutcome = { ok: true; inspection: PackageCodeInspection } | { ok: false; error: ExecutionError };

const STDERR_TAIL_BYTES = 8 * 1024;
const SIGXCPU_EXIT = 128 + 24;

interface ActiveRun {
  /** A handler run, or the inspection of a package's code (which may make no calls). */
  kind: 'run' | 'inspect';
  runId: number;
  handlers: ProcessRunHandlers;
  pendingCalls: number;
  outputBytes: number;
  finish: (outcome: HandlerSandboxOutcome) => void;
}

/** A run handed to a process while it does another, waiting there behind it (see HandlerSandboxProcess.runNext). */
interface NextRun {
  runId: number;
  /** The process was asked to drop it. */
  withdrawing: boolean;
  timer: NodeJS.Timeout;
  /** Begins it (the current run succeeded) or gives it back 'not-run'. */
  settle: (begin: boolean) => void;
}

/**
 * One sandbox process, bound to one package for its whole life (see HandlerSandboxPool), running one run at a
 * time. Every frame it sends is parsed as untrusted input and its rate bounded; a violation, a flood of
 * output, an overrun or a crash ends the process and, with a code of its own, the run it was doing.
 */
export class HandlerSandboxProcess {
  readonly ready: Promise<void>;
  runs = 0;
  cpuMs = 0;
  /** V8 heap in use after its last run, MB (as the process reports it). */
  heapMb = 0;
  lastUsed = Date.now();
  private readonly child: ChildProcess;
  private readonly channel: FrameChannel;
  private readonly stderr = new StreamTail(STDERR_TAIL_BYTES);
  private current: ActiveRun | null = null;
  /** The runs it was handed while it did the current one (runNext), in the order it begins them. */
  private queued: NextRun[] = [];
  private currentSince = 0;
  private idleOutputBytes = 0;
  private nextRunId = 1;
  private tokens: number;
  private lastRefill = performance.now();
  /** Why the executor ended it (the run's code), when it did. */
  private endedBecause: ExecutionError | null = null;
  private exited = false;
  private cleanedUp = false;
  private readonly exitListeners: (() => void)[] = [];
  private readonly readyWaiter: { resolve: () => void; reject: (error: Error) => void };
  private readonly packagePathInside: string;

  constructor(
    readonly contentHash: string,
    spawnSpec: ProcessSpawn,
    private readonly bounds: ProcessBounds,
  ) {
    this.tokens = bounds.maxMessagesPerSecond * 2;
    this.packagePathInside = spawnSpec.packagePathInside;
    this.child = spawn(spawnSpec.command, spawnSpec.args, {
      cwd: spawnSpec.cwd,
      env: spawnSpec.env,
      // setsid: one kill(-pid) reaches bwrap and everything under it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      ...(spawnSpec.runAs ? { uid: spawnSpec.runAs.uid, gid: spawnSpec.runAs.gid } : {}),
    });
    const pipe = this.child.stdio[3] as Duplex;
    pipe.on('error', () => undefined);
    this.channel = new FrameChannel(
      pipe,
      bounds.maxFrameBytes,
      (value) => this.receive(value),
      (reason, detail) =>
        reason === 'too_large'
          ? this.end('RESOURCE_EXHAUSTED', `The handler's sandbox sent ${detail} and was stopped`, { limit: 'message size' })
          : this.end('SANDBOX_CRASHED', `The handler's sandbox sent ${detail} and was stopped`, { reason: 'protocol violation' }),
    );
    const onOutput = (chunk: Buffer) => this.countOutput(chunk.length);
    this.child.stdout?.on('data', onOutput);
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk);
      onOutput(chunk);
    });
    let markReady: () => void = () => undefined;
    let failStart: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    this.ready.catch(() => undefined);
    this.readyWaiter = { resolve: markReady, reject: failStart };
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.exited) return;
      this.exited = true;
      // What it left in its group (bwrap's namespace dies with bwrap; without bwrap, stray children) goes too.
      if (this.child.pid !== undefined) signalGroup(this.child.pid, 'SIGKILL');
      failStart(new Error(`the sandbox process exited during start-up (${describeExit(code, signal)}): ${this.stderr.text().trim()}`));
      this.current?.finish({ ok: false, error: this.endedBecause ?? this.crashError(code, signal) });
      this.giveBackHeld();
      // Listeners (the pool's close among them) hear of the exit once its scratch directory is gone.
      void spawnSpec
        .cleanUp()
        .catch(() => undefined)
        .finally(() => {
          this.cleanedUp = true;
          for (const listener of this.exitListeners.splice(0)) listener();
        });
    };
    this.child.on('error', (error) => {
      failStart(new Error(`the sandbox process could not be started: ${error.message}`));
      // A spawn that failed has no process and emits no 'exit'.
      if (this.child.pid === undefined) gone(null, null);
    });
    this.child.on('exit', gone);
  }

  /** When its current run began (performance.now()), or null while it runs none. */
  get runningSince(): number | null {
    return this.current === null ? null : this.currentSince;
  }

  /** True while its run waits for a tool or twin call it made (it uses no CPU meanwhile). */
  get waitingOnCalls(): boolean {
    return (this.current?.pendingCalls ?? 0) > 0;
  }

  get alive(): boolean {
    return !this.exited && this.endedBecause === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  onExit(listener: () => void): void {
    if (this.cleanedUp) listener();
    else this.exitListeners.push(listener);
  }

  /** Runs one request; the outcome is always an outcome (the process's failures are codes, never exceptions). */
  run(request: Omit<RunRequest, 'type' | 'runId'>, handlers: ProcessRunHandlers): Promise<HandlerSandboxOutcome> {
    if (this.current || this.queued.length > 0) throw new Error('a sandbox process runs one request at a time');
    const runId = this.nextRunId++;
    return new Promise<HandlerSandboxOutcome>((resolve) => this.begin(runId, request, handlers, resolve, false));
  }

  /**
   * Hands the process a run to do after its current one and those it holds already (the pool bounds how many): the run
   * is sent now and waits in the process, which begins it as soon as the runs ahead of it end, without waiting to be
   * woken (a process woken for every run pays for it in CPU: its caches are cold by then). Its limits count from when
   * it begins. It comes back 'not-run', never begun and with nothing of it served, when a run ahead of it does not
   * succeed (the process is ended after it, see HandlerSandboxPool), when the process dies first, or when it has not
   * begun within `withdrawAfterMs` or its signal fires meanwhile (the process is asked to drop it; a run it has begun by
   * then goes on as usual). The process answers in the order it was sent frames, so a drop it made ('withdrawn') always
   * arrives before the end of the run it was waiting behind, and the runs begin here in the order they begin there.
   */
  runNext(
    request: Omit<RunRequest, 'type' | 'runId'>,
    handlers: ProcessRunHandlers,
    withdrawAfterMs: number,
  ): Promise<HandlerSandboxOutcome | 'not-run'> {
    if (!this.current) return this.run(request, handlers);
    const runId = this.nextRunId++;
    return new Promise<HandlerSandboxOutcome | 'not-run'>((resolve) => {
      const withdraw = () => {
        if (!this.queued.includes(next) || next.withdrawing) return;
        next.withdrawing = true;
        this.channel.send({ type: 'withdraw', runId } satisfies ToSandbox);
      };
      const next: NextRun = {
        runId,
        withdrawing: false,
        timer: setTimeout(withdraw, withdrawAfterMs),
        settle: (begin) => {
          clearTimeout(next.timer);
          handlers.signal.removeEventListener('abort', withdraw);
          this.queued = this.queued.filter((other) => other !== next);
          if (begin) this.begin(runId, request, handlers, resolve, true);
          else resolve('not-run');
        },
      };
      this.queued.push(next);
      if (handlers.signal.aborted) withdraw();
      else handlers.signal.addEventListener('abort', withdraw, { once: true });
      this.channel.send({ type: 'run', runId, ...request, packagePath: this.packagePathInside } satisfies ToSandbox);
    });
  }

  /** How many runs it holds to do after its current one (see runNext). */
  get heldNext(): number {
    return this.queued.length;
  }

  /** Every run it holds comes back 'not-run' (after a failed run, or its end): none of them has begun. */
  private giveBackHeld(): void {
    for (const next of [...this.queued]) next.settle(false);
  }

  /** Makes `runId` the current run: its timeout and cancellation start now; `sent`: the process has it already. */
  private begin(
    runId: number,
    request: Omit<RunRequest, 'type' | 'runId'>,
    handlers: ProcessRunHandlers,
    resolve: (outcome: HandlerSandboxOutcome) => void,
    sent: boolean,
  ): void {
    this.runs++;
    this.lastUsed = Date.now();
    let graceTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(
      () =>
        this.end('HANDLER_TIMEOUT', `The handler did not finish within ${handlers.timeoutMs} ms and was stopped`, {
          timeout_ms: handlers.timeoutMs,
        }),
      handlers.timeoutMs,
    );
    const onAbort = () => {
      this.channel.send({ type: 'abort', runId } satisfies ToSandbox);
      graceTimer = setTimeout(() => this.end('CANCELLED', 'Execution cancelled; the handler was stopped', {}), handlers.cancelGraceMs);
    };
    const active: ActiveRun = {
      kind: 'run',
      runId,
      handlers,
      pendingCalls: 0,
      outputBytes: 0,
      finish: (outcome) => {
        if (this.current !== active) return;
        this.current = null;
        this.lastUsed = Date.now();
        clearTimeout(timer);
        clearTimeout(graceTimer);
        handlers.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
        // The first of the runs it holds begins at once (the process has begun it already) after a success; after a
        // failure none does (they all come back never begun).
        if (outcome.ok && this.alive) this.queued[0]?.settle(true);
        else this.giveBackHeld();
      },
    };
    this.current = active;
    this.currentSince = performance.now();
    if (!this.alive) return active.finish({ ok: false, error: this.endedBecause ?? this.crashError(null, null) });
    if (handlers.signal.aborted) onAbort();
    else handlers.signal.addEventListener('abort', onAbort, { once: true });
    if (!sent) this.channel.send({ type: 'run', runId, ...request, packagePath: this.packagePathInside } satisfies ToSandbox);
  }

  /**
   * Inspects the code of the package at `request.packagePath` (as the process sees it): the JSON Schemas and
   * findings, parsed and bounded as untrusted input; a failure (timeout, crash, a message out of place) is
   * the process's end and comes back as an error, never as findings.
   */
  inspect(request: Omit<InspectRequest, 'type' | 'runId'>, timeoutMs: number): Promise<InspectionOutcome> {
    if (this.current || this.queued.length > 0) throw new Error('a sandbox process runs one request at a time');
    const runId = this.nextRunId++;
    this.runs++;
    this.lastUsed = Date.now();
    const refuse = async (): Promise<ToolReplyBody> => ({
      ok: false,
      error: { code: 'PRECONDITION_FAILED', message: 'no calls while a package is inspected', details: {} },
    });
    return new Promise<InspectionOutcome>((resolve) => {
      const timer = setTimeout(
        () =>
          this.end('HANDLER_TIMEOUT', `The package's code did not finish loading within ${timeoutMs} ms and was stopped`, {
            timeout_ms: timeoutMs,
          }),
        timeoutMs,
      );
      const active: ActiveRun = {
        kind: 'inspect',
        runId,
        handlers: {
          timeoutMs,
          signal: new AbortController().signal,
          cancelGraceMs: 0,
          onToolCall: refuse,
          onTwinCall: refuse,
          onLog: () => undefined,
        },
        pendingCalls: 0,
        outputBytes: 0,
        finish: (outcome) => {
          if (this.current !== active) return;
          this.current = null;
          this.lastUsed = Date.now();
          clearTimeout(timer);
          resolve(outcome.ok ? { ok: true, inspection: outcome.output as unknown as PackageCodeInspection } : outcome);
        },
      };
      this.current = active;
      this.currentSince = performance.now();
      if (!this.alive) return active.finish({ ok: false, error: this.endedBecause ?? this.crashError(null, null) });
      this.channel.send({ type: 'inspect', runId, ...request } satisfies ToSandbox);
    });
  }

  /** Ends the process (SIGKILL to its group); the run it was doing ends with `code`. */
  end(code: ExecutionError['code'], message: string, details: Record<string, unknown>): void {
    if (this.endedBecause === null && !this.exited) this.endedBecause = { code, message, details };
    if (this.child.pid !== undefined && !this.exited) signalGroup(this.child.pid, 'SIGKILL');
  }

  /** Ends an idle process without a run to report to. */
  stop(): void {
    this.end('SANDBOX_CRASHED', 'The sandbox process was stopped', {});
  }

  private receive(value: unknown): void {
    if (!this.withinRate()) {
      return this.end('RESOURCE_EXHAUSTED', `The handler sent more than ${this.bounds.maxMessagesPerSecond} messages per second`, {
        limit: 'message rate',
      });
    }
    const parsed = parseFromSandbox(value);
    if (!parsed.ok) {
      return this.end('SANDBOX_CRASHED', `The handler's sandbox sent a malformed message (${parsed.problem})`, {
        reason: 'protocol violation',
      });
    }
    const message: FromSandbox = parsed.message;
    if (message.type === 'ready') return this.readyWaiter.resolve();
    if (message.type === 'withdrawn') {
      this.queued.find((next) => next.runId === message.runId)?.settle(false);
      return;
    }
    const run = this.current;
    // A message of an earlier run (a stray timer of its handler) is dropped, not an error.
    if (!run || message.runId !== run.runId) return;
    // An inspection's one answer is 'inspected', which answers nothing else: any other message is a protocol violation.
    if ((run.kind === 'inspect') !== (message.type === 'inspected')) {
      const doing = run.kind === 'inspect' ? 'inspected a package' : 'ran a handler';
      return this.end('SANDBOX_CRASHED', `The sandbox sent '${message.type}' while it ${doing}`, { reason: 'protocol violation' });
    }
    switch (message.type) {
      case 'inspected':
        return run.finish({
          ok: true,
          output: { inputJsonSchema: message.inputJsonSchema, outputJsonSchema: message.outputJsonSchema, issues: message.issues },
        });
      case 'result':
        this.cpuMs = message.cpuMs ?? this.cpuMs;
        this.heapMb = message.heapMb ?? this.heapMb;
        return run.finish(
          message.outcome === 'ok'
            ? { ok: true, output: message.output as Record<string, unknown> }
            : { ok: false, error: handlerErrorOf(message.error as NonNullable<typeof message.error>) },
        );
      case 'log':
        return run.handlers.onLog(message.level, message.message, message.fields);
      case 'tool_call':
      case 'twin_call': {
        if (run.pendingCalls >= this.bounds.maxPendingCalls) {
          return this.end('RESOURCE_EXHAUSTED', `The handler had more than ${this.bounds.maxPendingCalls} tool and twin calls in flight`, {
            limit: 'calls in flight',
          });
        }
        run.pendingCalls++;
        const served =
          message.type === 'tool_call'
            ? run.handlers.onToolCall(message.op, message.args)
            : run.handlers.onTwinCall(message.op, message.args);
        void served
          .catch((error: Error): ToolReplyBody => ({ ok: false, error: { code: 'TOOL_ERROR', message: error.message, details: {} } }))
          .then((reply) => {
            run.pendingCalls--;
            if (this.current === run) this.channel.send({ type: 'tool_reply', callId: message.callId, ...reply } satisfies ToSandbox);
          });
        return;
      }
    }
  }

  private withinRate(): boolean {
    const now = performance.now();
    const capacity = this.bounds.maxMessagesPerSecond * 2;
    this.tokens = Math.min(capacity, this.tokens + ((now - this.lastRefill) / 1000) * this.bounds.maxMessagesPerSecond);
    this.lastRefill = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private countOutput(bytes: number): void {
    const run = this.current;
    const total = run ? (run.outputBytes += bytes) : (this.idleOutputBytes += bytes);
    if (total > this.bounds.maxOutputBytes) {
      this.end(
        'RESOURCE_EXHAUSTED',
        `The handler wrote more than ${this.bounds.maxOutputBytes} bytes to stdout and stderr and was stopped`,
        {
          limit: 'output',
        },
      );
    }
  }

  private crashError(code: number | null, signal: NodeJS.Signals | null): ExecutionError {
    const stderrTail = this.stderr.text().trim();
    if (/heap out of memory|Allocation failed|Cannot allocate memory/i.test(stderrTail) || code === SIGXCPU_EXIT || signal === 'SIGXCPU') {
      return {
        code: 'RESOURCE_EXHAUSTED',
        message: `The handler's sandbox ran out of ${code === SIGXCPU_EXIT || signal === 'SIGXCPU' ? 'CPU time' : 'memory'} (${describeExit(code, signal)})`,
        details: { exit_code: code, signal, stderr_tail: stderrTail },
      };
    }
    return {
      code: 'SANDBOX_CRASHED',
      message: `The handler's sandbox process ended during the run (${describeExit(code, signal)})`,
      details: { exit_code: code, signal, stderr_tail: stderrTail },
    };
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}
