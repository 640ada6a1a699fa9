import { availableParallelism } from 'node:os';
import type { McpBridge } from '@skill-registry/sdk';
import type { ExecutionError } from '#executions/index.js';
import {
  HandlerSandboxProcess,
  type HandlerSandboxOutcome,
  type ProcessBounds,
  type ProcessRunHandlers,
  type ProcessSpawn,
} from './sandbox-process.js';
import type { RunRequest, ToolReplyBody, TwinCallHandler, TwinOp } from './sandbox-protocol.js';

export type { HandlerSandboxOutcome } from './sandbox-process.js';

export interface HandlerSandboxRunOptions {
  /** Hard limit: the process is killed when it passes, even if the handler never yields. */
  timeoutMs: number;
  /** Cancellation: the handler's signal fires, and after `cancelGraceMs` the process is killed. */
  signal: AbortSignal;
  bridge: McpBridge;
  /** The tools the version declares (`tools_required`): a call to any other fails PRECONDITION_FAILED. */
  declaredTools: readonly string[];
  /** A call to an undeclared tool, refused (the runner records it as an event). */
  onUndeclaredTool?: (toolId: string) => void;
  /** Serves the handler's twin calls; without it they fail as unavailable. */
  twin?: TwinCallHandler;
  onLog?: (level: string, message: string, fields: Record<string, unknown>) => void;
  /**
   * Awaited before the handler's channel traffic (tool and twin calls, log lines) is served; a rejection
   * fails that call (the runner uses it to make the attempt's start durable first, see AttemptStart).
   */
  beforeChannel?: () => Promise<void>;
}

/** Makes the process spec for a package (HandlerLauncher in the executor; a stand-in in the pool's own tests). */
export interface HandlerSandboxLauncher {
  spawnSpec(packageDir: string, contentHash: string): Promise<ProcessSpawn>;
  /** Null when processes can start here, else why not (the message names what to install). */
  unavailableReason?(): Promise<string | null>;
  close?(): Promise<void>;
}

export interface HandlerSandboxPoolOptions {
  /** Most sandbox processes at once, across packages (SANDBOX_MAX_PROCESSES). */
  maxProcesses: number;
  cancelGraceMs: number;
  /**
   * Runs one process serves before it is replaced: each process draws its own limit between
   * (1 − runLimitJitter) × this and this, so a package's processes, started together, are not all replaced at once.
   */
  maxRunsPerProcess: number;
  /** See maxRunsPerProcess (default 0.25; 0: every process exactly maxRunsPerProcess). */
  runLimitJitter?: number;
  /** The processes' V8 heap bound, MB: one whose heap in use reaches half of it is replaced (a leak is cut short). */
  heapLimitMb?: number;
  /** A process idle this long is ended. */
  idleMs: number;
  /** RLIMIT_CPU of each process, s: it is replaced once it used half of it. */
  cpuSeconds: number;
  bounds: ProcessBounds;
  /**
   * A run whose package has processes, all busy, waits this long for one of them before another is
   * started: short runs share a few processes (a start costs a node process and its runtime, far more
   * than many short runs), long ones still get processes of their own.
   */
  spawnAfterMs?: number;
  /**
   * Processes of one package that waiting runs may have started for them whatever the length of the runs
   * (default: 2 per core). Past it, another starts only while every process of the package is held by its run
   * (one that has lasted spawnAfterMs, or that waits for a tool or twin call): a queue of short runs moves on the
   * processes there are. A few per core, each holding runs behind its current one (nextRunsPerProcess), keep short
   * runs flowing (see SHORT_RUN_PROCESSES_PER_CORE); without the bound, the queue of a busy package started a process per waiting run
   * (65 at concurrency 128 in the executor's benchmark, 5 GB), whose starts held runs up for over 30 s.
   */
  shortRunProcesses?: number;
  /** Runs a busy process may hold to do after its current one (HandlerSandboxProcess.runNext; default 4). */
  nextRunsPerProcess?: number;
}

const SPAWN_AFTER_MS = 200;
/**
 * A package's short runs share two processes per core, each holding up to four runs behind the one it does: a process
 * then goes from run to run without sleeping, and reads several at a wake-up. No-op handlers at concurrency 32 on two
 * cores (`bench/executor/ab.mjs` in turns, 8 rounds each): 1.07–1.10× the executions per second of four processes per
 * core holding one run each (one per core holding four: 1.09–1.13×; the sandboxes' CPU per execution 0.25–0.31 ms
 * against 0.39–0.53). Four per core holding four gained nothing (1.01×: with that many, one is nearly always idle and
 * each run wakes one up), nor did fewer processes holding one (1.02×). Two rather than one per core leave room for
 * runs that are short but not tiny to use both cores.
 */
const SHORT_RUN_PROCESSES_PER_CORE = 2;
const NEXT_RUNS_PER_PROCESS = 4;

type RunRequestBody = Omit<RunRequest, 'type' | 'runId'>;

/** Where a run goes: a process of its own for now, or one that takes it next, behind its current run (`outcome`). */
type Slot = { process: HandlerSandboxProcess; outcome?: Promise<HandlerSandboxOutcome | 'not-run'> };

type Waiter = {
  contentHash: string;
  packageDir: string;
  since: number;
  request: RunRequestBody;
  handlers: ProcessRunHandlers;
  take: (slot: Slot) => void;
  fail: (error: Error) => void;
};

/**
 * Sandbox processes, reused only for the same package content hash: two packages never share one.
 * A process runs one request at a time; a busy one may be handed the run that follows (handNext), which it begins as
 * the current one ends, so a stream of short runs keeps it awake. It is ended after idleMs idle, and at once after any run that did
 * not succeed (a failed, timed-out or cancelled run may have left it in any state), a fresh one being started
 * for its package at once where nothing else serves it (so a retry or the next call does not wait for a start).
 * One worn by use (its run limit, half its CPU budget, or half its heap bound) is replaced without a gap: its
 * replacement is started beside it, and it serves on until that one is ready (a start costs a few hundred
 * milliseconds that a run would otherwise wait; when every process of a busy package wore out together, its runs
 * stalled); with no room for one more, it is ended at once. At most maxProcesses exist; a package that needs one
 * when all are taken ends the least recently used idle one, or waits its turn.
 */
export class HandlerSandboxPool {
  private readonly idle = new Map<string, HandlerSandboxProcess[]>();
  private readonly all = new Set<HandlerSandboxProcess>();
  /** Processes being started (they count against maxProcesses), and per package. */
  private starting = 0;
  private readonly startingFor = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private readonly sweep: NodeJS.Timeout;
  /** A dispatch due when the oldest waiting run has waited spawnAfterMs. */
  private redispatch: NodeJS.Timeout | null = null;
  private closed = false;
  private lastReason: string | null | undefined;
  private readonly shortRunProcesses: number;
  private readonly nextRunsPerProcess: number;
  /** Each process's own run limit, and the package directory it was started for (its replacement's too). */
  private readonly runLimits = new WeakMap<HandlerSandboxProcess, number>();
  private readonly packageDirs = new WeakMap<HandlerSandboxProcess, string>();
  /** Runs given each process and not yet over (its current one, and the next one it was handed; see claim). */
  private readonly claims = new WeakMap<HandlerSandboxProcess, number>();
  /** Worn processes: serving on while their replacement starts ('starting'), or to be ended when next released ('replaced'). */
  private readonly retiring = new Map<HandlerSandboxProcess, 'starting' | 'replaced'>();

  constructor(
    private readonly launcher: HandlerSandboxLauncher,
    private readonly options: HandlerSandboxPoolOptions,
  ) {
    this.shortRunProcesses = options.shortRunProcesses ?? SHORT_RUN_PROCESSES_PER_CORE * availableParallelism();
    this.nextRunsPerProcess = options.nextRunsPerProcess ?? NEXT_RUNS_PER_PROCESS;
    this.sweep = setInterval(() => this.retireIdle(), Math.min(10_000, Math.max(100, options.idleMs / 2))).unref();
  }

  /** Processes alive now (idle or busy). */
  get size(): number {
    return this.all.size;
  }

  /** Process ids of the live sandbox processes (for memory figures and tests). */
  pids(): number[] {
    return [...this.all].flatMap((process) => (process.pid === undefined ? [] : [process.pid]));
  }

  /** Null when handlers can run here, else why not. */
  async unavailableReason(): Promise<string | null> {
    this.lastReason = (await this.launcher.unavailableReason?.()) ?? null;
    return this.lastReason;
  }

  /** What the last check found, and the processes alive now (for the health endpoints). */
  status(): { available: boolean; reason: string | null; processes: number } {
    const reason = this.lastReason === undefined ? 'not checked yet' : this.lastReason;
    return { available: reason === null, reason, processes: this.all.size };
  }

  async run(request: RunRequestBody, options: HandlerSandboxRunOptions): Promise<HandlerSandboxOutcome> {
    const unavailable = await this.unavailableReason();
    if (unavailable)
      return { ok: false, error: { code: 'PRECONDITION_FAILED', message: unavailable, details: { reason: 'SANDBOX_UNAVAILABLE' } } };
    const declared = new Set(options.declaredTools);
    // Tool calls of this run stop with it (timeout, cancellation, process death), not only with the execution.
    // Made on the first call: most runs make none, and a controller with its combined signal, aborted at the end,
    // cost a tenth of the executor's CPU per quick run (the abort builds an AbortError with its stack).
    const calls = new RunCalls(options.signal);
    const serveTwin = (op: string, args: unknown[]): Promise<ToolReplyBody> =>
      options.twin
        ? options.twin(op as TwinOp, args, calls.signal).catch((error: Error) => twinUnavailable(error.message))
        : Promise.resolve(twinUnavailable('this executor serves no digital twin'));
    // With a gate, every call waits on it (one promise, so log lines keep their order among themselves);
    // without one, log lines are handed on synchronously, as they arrive.
    const gate = options.beforeChannel;
    const afterGate = <T>(serve: () => T | Promise<T>): Promise<T> => (gate ? gate().then(serve) : Promise.resolve(serve()));
    const handlers: ProcessRunHandlers = {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      cancelGraceMs: this.options.cancelGraceMs,
      onLog: (level, message, fields) => {
        if (!gate) return options.onLog?.(level, message, fields);
        void afterGate(() => options.onLog?.(level, message, fields)).catch(() => undefined);
      },
      onToolCall: (op, args) => afterGate(() => callTool(options, declared, calls.signal, op, args)),
      onTwinCall: (op, args) => afterGate(() => serveTwin(op, args)),
    };
    const since = performance.now();
    for (;;) {
      let slot: Slot;
      try {
        slot = await this.acquire(request, handlers, since);
        if (!slot.outcome) await slot.process.ready;
      } catch (error) {
        return {
          ok: false,
          error: { code: 'SANDBOX_CRASHED', message: `The handler's sandbox could not start: ${(error as Error).message}`, details: {} },
        };
      }
      let running = slot.outcome;
      if (!running) {
        running = slot.process.run(request, handlers);
        // Busy now: runs waiting for its package may be handed to it next (see handNext).
        if (this.waiting.length > 0) this.dispatch();
      }
      const outcome = await running;
      // Handed to a process behind its run and given back before it began (nothing of it ran): cancelled meanwhile,
      // it ends here; else it goes to another process (or the same one, free by then), ahead of later runs.
      if (outcome === 'not-run') {
        this.givenBack(slot.process);
        if (options.signal.aborted) return { ok: false, error: { code: 'CANCELLED', message: 'Execution cancelled', details: {} } };
        continue;
      }
      calls.end();
      this.release(slot.process, outcome.ok);
      if (!outcome.ok && options.signal.aborted && outcome.error.code !== 'CANCELLED')
        return { ok: false, error: cancelledFrom(outcome.error) };
      return outcome;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    if (this.redispatch) clearTimeout(this.redispatch);
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error('sandbox pool is closed'));
    const gone = [...this.all].map((process) => new Promise<void>((resolve) => process.onExit(resolve)));
    for (const process of this.all) process.stop();
    await Promise.all(gone);
    this.idle.clear();
    await this.launcher.close?.();
  }

  private acquire(request: RunRequestBody, handlers: ProcessRunHandlers, since: number): Promise<Slot> {
    if (this.closed) return Promise.reject(new Error('sandbox pool is closed'));
    const { contentHash, packagePath: packageDir } = request;
    const reused = this.takeIdle(contentHash);
    if (reused) return Promise.resolve({ process: reused });
    // Not ahead of runs of its package that wait already: they are served first, oldest first (dispatch).
    const behind = this.waiting.some((waiter) => waiter.contentHash === contentHash) ? null : this.handNext(request, handlers);
    if (behind) return Promise.resolve(behind);
    return new Promise<Slot>((resolve, reject) => {
      this.waiting.push({ contentHash, packageDir, since, request, handlers, take: resolve, fail: reject });
      this.dispatch();
    });
  }

  /**
   * A busy process of the run's package that takes it next (HandlerSandboxProcess.runNext), so that it goes from one run
   * to the next without sleeping in between: one alive and staying (not being replaced), holding fewer than
   * nextRunsPerProcess runs, whose current run is short so far (under spawnAfterMs) and not waiting for a call. The run is taken back if the current
   * one outlasts spawnAfterMs after all, and then served like any waiting run (a process of its own if need be).
   */
  private handNext(request: RunRequestBody, handlers: ProcessRunHandlers): Slot | null {
    const spawnAfterMs = this.options.spawnAfterMs ?? SPAWN_AFTER_MS;
    const now = performance.now();
    for (const process of this.all) {
      if (process.contentHash !== request.contentHash || !process.alive || process.waitingOnCalls) continue;
      if (process.heldNext >= this.nextRunsPerProcess) continue;
      const since = process.runningSince;
      if (since === null || now - since >= spawnAfterMs || this.retiring.has(process)) continue;
      return { process: this.claim(process), outcome: process.runNext(request, handlers, spawnAfterMs) };
    }
    return null;
  }

  /**
   * Serves waiting runs, oldest first: an idle process of their package, else one that takes them next (handNext),
   * else a new one where there is room.
   * Once the oldest waiting run of a package can be served neither way, neither can the later ones of that
   * package in this pass (they have waited less, and nothing is released meanwhile): they are passed over, so a
   * long queue of one busy package costs a lookup per run, not a look at every process.
   */
  private dispatch(): void {
    const spawnAfterMs = this.options.spawnAfterMs ?? SPAWN_AFTER_MS;
    const now = performance.now();
    const blocked = new Set<string>();
    let nextDue = Infinity;
    for (let index = 0; index < this.waiting.length;) {
      const waiter = this.waiting[index] as Waiter;
      if (blocked.has(waiter.contentHash)) {
        index++;
        continue;
      }
      const reused = this.takeIdle(waiter.contentHash);
      const slot = reused ? { process: reused } : this.handNext(waiter.request, waiter.handlers);
      if (slot) {
        this.waiting.splice(index, 1);
        waiter.take(slot);
        continue;
      }
      // Its package's processes are busy: wait for one of them a little before starting another, and past a few
      // processes, start one only while all of them are held by their runs (long ones, or ones waiting on calls).
      const due = waiter.since + spawnAfterMs;
      const processes = this.processesOf(waiter.contentHash);
      let waitUntil: number | null = null;
      if (processes > 0 && now < due) waitUntil = due;
      else {
        const longFrom = processes >= this.shortRunProcesses ? this.allInLongRunsFrom(waiter.contentHash, spawnAfterMs) : now;
        // Looked at again when they would all be long by now; while one is starting or between runs, a little later.
        if (longFrom > now) waitUntil = longFrom === Infinity ? now + spawnAfterMs : longFrom;
      }
      if (waitUntil !== null || (this.all.size + this.starting >= this.options.maxProcesses && !this.evictLeastRecentlyUsed())) {
        if (waitUntil !== null) nextDue = Math.min(nextDue, waitUntil);
        blocked.add(waiter.contentHash);
        index++;
        continue;
      }
      this.waiting.splice(index, 1);
      this.start(waiter);
    }
    if (nextDue !== Infinity && !this.redispatch && !this.closed) {
      this.redispatch = setTimeout(
        () => {
          this.redispatch = null;
          this.dispatch();
        },
        Math.max(1, nextDue - performance.now()),
      );
    }
  }

  /**
   * From when every process of a package is held by its run (one that has lasted `longMs`, or that waits for a tool
   * or twin call meanwhile), as far as can be known now: Infinity while one is being started or is idle (it serves a
   * waiting run as soon as it can).
   */
  private allInLongRunsFrom(contentHash: string, longMs: number): number {
    if ((this.startingFor.get(contentHash) ?? 0) > 0) return Infinity;
    let from = -Infinity;
    for (const process of this.all) {
      if (process.contentHash !== contentHash || !process.alive) continue;
      const since = process.runningSince;
      if (since === null) return Infinity;
      if (!process.waitingOnCalls) from = Math.max(from, since + longMs);
    }
    return from;
  }

  /** Processes of a package, alive or being started. */
  private processesOf(contentHash: string): number {
    let count = this.startingFor.get(contentHash) ?? 0;
    for (const process of this.all) if (process.contentHash === contentHash && process.alive) count++;
    return count;
  }

  private start(waiter: Waiter): void {
    this.countStarting(waiter.contentHash, 1);
    const started = () => this.countStarting(waiter.contentHash, -1);
    void this.launcher.spawnSpec(waiter.packageDir, waiter.contentHash).then(
      (spec) => {
        started();
        if (this.closed) {
          void spec.cleanUp();
          return waiter.fail(new Error('sandbox pool is closed'));
        }
        waiter.take({ process: this.claim(this.adopt(waiter.contentHash, waiter.packageDir, spec)) });
      },
      (error: Error) => {
        started();
        waiter.fail(error);
        this.dispatch();
      },
    );
  }

  /** A new process of the pool. */
  private adopt(contentHash: string, packageDir: string, spec: ProcessSpawn): HandlerSandboxProcess {
    const process = new HandlerSandboxProcess(contentHash, spec, this.options.bounds);
    const jitter = this.options.runLimitJitter ?? 0.25;
    this.runLimits.set(process, Math.max(1, Math.round(this.options.maxRunsPerProcess * (1 - jitter * Math.random()))));
    this.packageDirs.set(process, packageDir);
    this.all.add(process);
    process.onExit(() => this.forget(process));
    return process;
  }

  /** Worn by use: its run limit reached, half its CPU budget (RLIMIT_CPU ends it at the whole) or half its heap bound used. */
  private worn(process: HandlerSandboxProcess): boolean {
    return (
      process.runs >= (this.runLimits.get(process) ?? this.options.maxRunsPerProcess) ||
      process.cpuMs >= (this.options.cpuSeconds * 1000) / 2 ||
      (this.options.heapLimitMb !== undefined && process.heapMb >= this.options.heapLimitMb / 2)
    );
  }

  /** Past what a worn process may serve while its replacement starts (one that never became ready). */
  private wornOut(process: HandlerSandboxProcess): boolean {
    return (
      process.runs >= 2 * (this.runLimits.get(process) ?? this.options.maxRunsPerProcess) ||
      process.cpuMs >= (this.options.cpuSeconds * 1000 * 3) / 4
    );
  }

  /**
   * Starts the replacement of a worn process; once it is ready (or failed to start), the worn one is ended
   * (now if idle, else when its run ends) and the replacement serves its package's runs.
   */
  private replace(worn: HandlerSandboxProcess): void {
    this.retiring.set(worn, 'starting');
    this.startSpare(worn.contentHash, this.packageDirs.get(worn) as string, (replacement) => {
      if (this.retiring.get(worn) === 'starting') this.retiring.set(worn, 'replaced');
      if (this.isIdle(worn)) {
        this.removeIdle(worn);
        this.discard(worn);
      }
      return replacement;
    });
  }

  /**
   * After a run that did not succeed ended its process: a fresh one for the package, started now and kept idle,
   * so the package's next run (a retry, or the next call) does not wait for a start. Only where nothing serves the
   * package meanwhile (no idle process, none starting, e.g. for a waiting run) and there is room; one spare per
   * failure, so a package whose processes cannot start is not started again and again.
   */
  private spareAfterFailure(contentHash: string, packageDir: string): void {
    if (this.closed || this.isIdleFor(contentHash) || (this.startingFor.get(contentHash) ?? 0) > 0) return;
    if (this.all.size + this.starting >= this.options.maxProcesses) return;
    this.startSpare(contentHash, packageDir, (spare) => spare);
  }

  /**
   * Starts a process for a package that, once ready, waits idle for the package's runs; `settle` (the process,
   * or null when it failed to start) says which process joins the idle ones, then waiting runs are served.
   */
  private startSpare(
    contentHash: string,
    packageDir: string,
    settle: (spare: HandlerSandboxProcess | null) => HandlerSandboxProcess | null,
  ): void {
    this.countStarting(contentHash, 1);
    const settled = (spare: HandlerSandboxProcess | null) => {
      const joining = settle(spare);
      if (joining?.alive && !this.closed) this.pushIdle(joining);
      if (!this.closed) this.dispatch();
    };
    void this.launcher.spawnSpec(packageDir, contentHash).then(
      (spec) => {
        this.countStarting(contentHash, -1);
        if (this.closed) return void spec.cleanUp();
        const spare = this.adopt(contentHash, packageDir, spec);
        spare.ready.then(
          () => settled(spare),
          () => settled(null),
        );
      },
      () => {
        this.countStarting(contentHash, -1);
        settled(null);
      },
    );
  }

  /** A process of the package begins (1) or ends (-1) being started. */
  private countStarting(contentHash: string, change: 1 | -1): void {
    this.starting += change;
    const count = (this.startingFor.get(contentHash) ?? 0) + change;
    if (count > 0) this.startingFor.set(contentHash, count);
    else this.startingFor.delete(contentHash);
  }

  private isIdle(process: HandlerSandboxProcess): boolean {
    return this.idle.get(process.contentHash)?.includes(process) ?? false;
  }

  private isIdleFor(contentHash: string): boolean {
    return this.idle.get(contentHash)?.some((process) => process.alive) ?? false;
  }

  private pushIdle(process: HandlerSandboxProcess): void {
    const list = this.idle.get(process.contentHash) ?? [];
    list.push(process);
    this.idle.set(process.contentHash, list);
  }

  private takeIdle(contentHash: string): HandlerSandboxProcess | null {
    const list = this.idle.get(contentHash);
    while (list && list.length > 0) {
      const process = list.pop() as HandlerSandboxProcess;
      if (list.length === 0) this.idle.delete(contentHash);
      if (process.alive) return this.claim(process);
    }
    return null;
  }

  /** A run was given the process (its current one, or its next): it is idle again only once every such run is over. */
  private claim(process: HandlerSandboxProcess): HandlerSandboxProcess {
    this.claims.set(process, (this.claims.get(process) ?? 0) + 1);
    return process;
  }

  /** One run of the process is over; how many it still holds. */
  private unclaim(process: HandlerSandboxProcess): number {
    const left = Math.max(0, (this.claims.get(process) ?? 0) - 1);
    this.claims.set(process, left);
    return left;
  }

  /** A run handed to the process next came back never begun (see handNext): the process may be free now. */
  private givenBack(process: HandlerSandboxProcess): void {
    if (this.unclaim(process) > 0 || !process.alive || this.isIdle(process)) return;
    if (this.closed || this.retiring.get(process) === 'replaced') this.discard(process);
    else this.pushIdle(process);
    this.dispatch();
  }

  private release(process: HandlerSandboxProcess, succeeded: boolean): void {
    const holds = this.unclaim(process) > 0;
    const retiring = this.retiring.get(process);
    let ended = !succeeded || !process.alive || this.closed || retiring === 'replaced' || this.wornOut(process);
    if (!ended && retiring === undefined && this.worn(process)) {
      // Replaced without a gap where there is room for one more process; else ended now, as any spent one.
      if (this.all.size + this.starting < this.options.maxProcesses) this.replace(process);
      else ended = true;
    }
    // After a success it may hold its next run already (see handNext): a process to end is ended after that one.
    // After a failure, or dead, it holds none any more (its next came back never begun).
    if (ended && holds && succeeded && process.alive && !this.closed) this.retiring.set(process, 'replaced');
    else if (ended) this.discard(process);
    else if (!holds) this.pushIdle(process);
    this.dispatch();
    if (!succeeded) this.spareAfterFailure(process.contentHash, this.packageDirs.get(process) as string);
  }

  /** Ends the least recently used idle process (of any package) to make room; false when none is idle. */
  private evictLeastRecentlyUsed(): boolean {
    let oldest: HandlerSandboxProcess | null = null;
    for (const list of this.idle.values()) for (const process of list) if (!oldest || process.lastUsed < oldest.lastUsed) oldest = process;
    if (!oldest) return false;
    this.removeIdle(oldest);
    this.discard(oldest);
    return true;
  }

  private retireIdle(): void {
    const before = Date.now() - this.options.idleMs;
    for (const list of [...this.idle.values()]) {
      for (const process of [...list]) {
        if (process.lastUsed < before) {
          this.removeIdle(process);
          this.discard(process);
        }
      }
    }
  }

  private removeIdle(process: HandlerSandboxProcess): void {
    const list = this.idle.get(process.contentHash);
    if (!list) return;
    const index = list.indexOf(process);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.idle.delete(process.contentHash);
  }

  /** Stops a process now (SIGKILL to its group: gone within milliseconds); its slot is free at once. */
  private discard(process: HandlerSandboxProcess): void {
    this.all.delete(process);
    this.retiring.delete(process);
    process.stop();
  }

  private forget(process: HandlerSandboxProcess): void {
    this.all.delete(process);
    this.retiring.delete(process);
    this.removeIdle(process);
    if (!this.closed) this.dispatch();
  }
}

function twinUnavailable(message: string): ToolReplyBody {
  return { ok: false, error: { code: 'HANDLER_ERROR', message, details: { reason: 'UNAVAILABLE' } } };
}

function cancelledFrom(error: ExecutionError): ExecutionError {
  return { code: 'CANCELLED', message: 'Execution cancelled', details: { handler_error: error } };
}

/** The signal of one run's tool and twin calls: aborted when the execution's is, or when the run ends; made on first use. */
class RunCalls {
  private controller: AbortController | null = null;
  private combined: AbortSignal | null = null;
  private ended = false;

  constructor(private readonly execution: AbortSignal) {}

  get signal(): AbortSignal {
    if (this.combined === null) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort();
      this.combined = AbortSignal.any([this.execution, this.controller.signal]);
    }
    return this.combined;
  }

  /** The run is over: calls still in flight stop. */
  end(): void {
    this.ended = true;
    this.controller?.abort();
  }
}

/** A tool call of the handler: only tools its version declares reach the bridge. */
async function callTool(
  options: HandlerSandboxRunOptions,
  declared: ReadonlySet<string>,
  signal: AbortSignal,
  op: 'invoke' | 'isAvailable' | 'listTools',
  args: unknown[],
): Promise<ToolReplyBody> {
  const bridge = options.bridge;
  try {
    if (op === 'listTools') {
      const capability = typeof args[0] === 'string' ? args[0] : undefined;
      return { ok: true, value: (await bridge.listTools(capability)).filter((tool) => declared.has(tool.toolId)) };
    }
    const toolId = args[0];
    if (typeof toolId !== 'string' || toolId.length > 200)
      return { ok: false, error: { code: 'TOOL_ERROR', message: 'a tool id must be a string', details: {} } };
    if (!declared.has(toolId)) {
      if (op === 'isAvailable') return { ok: true, value: false };
      options.onUndeclaredTool?.(toolId);
      return {
        ok: false,
        error: {
          code: 'PRECONDITION_FAILED',
          message: `Tool '${toolId}' is not declared in this skill's tools_required; a skill may call only the tools it declares`,
          details: { tool: toolId, reason: 'UNDECLARED_TOOL' },
        },
      };
    }
    if (op === 'isAvailable') return { ok: true, value: await bridge.isAvailable(toolId) };
    const params = args[1] !== null && typeof args[1] === 'object' && !Array.isArray(args[1]) ? (args[1] as Record<string, unknown>) : {};
    const timeoutMs = (args[2] as { timeoutMs?: unknown } | undefined)?.timeoutMs;
    return {
      ok: true,
      value: await bridge.invoke(toolId, params, {
        timeoutMs: typeof timeoutMs === 'number' && timeoutMs > 0 ? timeoutMs : undefined,
        signal,
      }),
    };
  } catch (error) {
    const typed = error as { code?: string; message?: string; details?: Record<string, unknown> };
    const code = typed.code === 'TOOL_TIMEOUT' || typed.code === 'PRECONDITION_FAILED' ? typed.code : 'TOOL_ERROR';
    const message = (typed.message ?? String(error)).replace(/^Tool '[^']*' (failed: )?/, '');
    return { ok: false, error: { code, message, details: typed.details ?? {} } };
  }
}
