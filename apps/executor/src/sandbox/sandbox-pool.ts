import { Worker } from 'node:worker_threads';
import type { McpBridge } from '@skill-registry/sdk';
import type { ExecutionError } from '#executions/index.js';
import type { RunRequest, ToParent, ToThread, TwinCallHandler } from './sandbox-protocol.js';

export interface SandboxRunOptions {
  /** Hard limit: the thread is terminated when it passes, even if the handler never yields. */
  timeoutMs: number;
  /** Cancellation: the handler's signal fires, and after `cancelGraceMs` the thread is terminated. */
  signal: AbortSignal;
  bridge: McpBridge;
  /** Serves the handler's twin calls; without it they fail as unavailable. */
  twin?: TwinCallHandler;
  onLog?: (level: string, message: string, fields: Record<string, unknown>) => void;
}

export type SandboxOutcome = { ok: true; output: Record<string, unknown> } | { ok: false; error: ExecutionError };

interface SandboxThread {
  worker: Worker;
  ready: Promise<void>;
  busy: boolean;
  /** It carries the compiler (it had to transpile a package): retired when it is free and no run waits. */
  retire: boolean;
  idleSince: number;
}

/** Options of a SandboxPool. */
export interface SandboxPoolOptions {
  /** Most threads at once (one run per thread). */
  maxThreads: number;
  cancelGraceMs: number;
  resourceLimits?: { maxOldGenerationSizeMb?: number; maxYoungGenerationSizeMb?: number };
  /**
   * While every thread is busy and runs wait, one more thread is started after this long (see grow):
   * threads stay few while runs are short; long runs still get threads of their own.
   */
  spawnAfterMs?: number;
  /** A thread idle this long is ended (the threads warm() started stay). */
  idleRetireMs?: number;
}

export const SPAWN_AFTER_MS = 500;
export const IDLE_RETIRE_MS = 60_000;

/** The environment a sandbox thread sees: no database, Redis or token variables. */
export function minimalEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const keep = ['PATH', 'HOME', 'LANG', 'TZ', 'NODE_ENV', 'TMPDIR'];
  return Object.fromEntries(keep.flatMap((key) => (source[key] !== undefined ? [[key, source[key] as string]] : [])));
}

/**
 * A pool of worker threads that run skill handlers, one run per thread. A thread that overruns its
 * timeout or ignores a cancellation is terminated and replaced; the pool keeps serving other runs.
 * Threads are started on demand: a run first waits (briefly, see spawnAfterMs) for a busy thread to
 * become free, so the pool holds as many threads as runs really overlap, not as many as it may.
 */
export class SandboxPool {
  private readonly idle: SandboxThread[] = [];
  private readonly all = new Set<SandboxThread>();
  /** Runs waiting for a thread, oldest first. */
  private readonly waiting: { take: (thread: SandboxThread) => void; fail: (error: Error) => void; since: number }[] = [];
  /** The pending start of one more thread for waiting runs (see grow). */
  private growth: NodeJS.Timeout | null = null;
  /** Threads kept however long idle: those warm() started. */
  private minThreads = 0;
  private readonly sweep: NodeJS.Timeout;
  private nextRunId = 1;
  private closed = false;

  constructor(
    private readonly threadEntry: URL,
    private readonly options: SandboxPoolOptions,
  ) {
    this.sweep = setInterval(() => this.retireIdle(), 10_000).unref();
  }

  /** Starts `count` threads ahead of time so the first runs do not pay the start-up. */
  async warm(count = this.options.maxThreads): Promise<void> {
    const threads = Array.from({ length: Math.min(count, this.options.maxThreads) }, () => this.spawn());
    this.minThreads = Math.max(this.minThreads, threads.length);
    await Promise.all(threads.map((thread) => thread.ready));
    for (const thread of threads) this.release(thread);
  }

  get size(): number {
    return this.all.size;
  }

  async run(request: Omit<RunRequest, 'type' | 'runId'>, options: SandboxRunOptions): Promise<SandboxOutcome> {
    const thread = await this.acquire();
    await thread.ready;
    const runId = this.nextRunId++;
    // Tool calls of this run stop with it (timeout, cancellation, thread death), not only with the execution.
    // Made on the first tool call: most runs of pure-logic skills never need it (an abort costs a DOMException).
    let toolCalls: { controller: AbortController; signal: AbortSignal } | undefined;
    const toolSignal = () => {
      if (!toolCalls) {
        const controller = new AbortController();
        toolCalls = { controller, signal: AbortSignal.any([options.signal, controller.signal]) };
      }
      return toolCalls.signal;
    };
    return new Promise<SandboxOutcome>((resolve) => {
      let settled = false;
      let graceTimer: NodeJS.Timeout | undefined;
      const finish = (outcome: SandboxOutcome, terminate: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        options.signal.removeEventListener('abort', onAbort);
        thread.worker.off('message', onMessage);
        thread.worker.off('exit', onExit);
        if (terminate) this.discard(thread);
        else this.release(thread);
        toolCalls?.controller.abort();
        resolve(outcome);
      };
      const timer = setTimeout(
        () =>
          finish(
            {
              ok: false,
              error: {
                code: 'HANDLER_TIMEOUT',
                message: `The handler did not finish within ${options.timeoutMs} ms and was stopped`,
                details: { timeout_ms: options.timeoutMs },
              },
            },
            true,
          ),
        options.timeoutMs,
      );
      const onAbort = () => {
        thread.worker.postMessage({ type: 'abort', runId } satisfies ToThread);
        graceTimer = setTimeout(
          () =>
            finish({ ok: false, error: { code: 'CANCELLED', message: 'Execution cancelled; the handler was stopped', details: {} } }, true),
          this.options.cancelGraceMs,
        );
      };
      const onExit = (code: number) =>
        finish({ ok: false, error: { code: 'HANDLER_ERROR', message: `The sandbox thread exited (code ${code})`, details: {} } }, true);
      const onMessage = (message: ToParent) => {
        if (!('runId' in message) || message.runId !== runId) return;
        if (message.type === 'result') {
          if (message.retire) thread.retire = true;
          if (message.outcome === 'ok') finish({ ok: true, output: message.output }, false);
          else finish({ ok: false, error: options.signal.aborted ? cancelledFrom(message.error) : message.error }, false);
        } else if (message.type === 'log') {
          options.onLog?.(message.level, message.message, message.fields);
        } else if (message.type === 'tool_call') {
          void callTool(options.bridge, toolSignal(), message.op, message.args).then((reply) => {
            if (!settled) thread.worker.postMessage({ type: 'tool_reply', callId: message.callId, ...reply } satisfies ToThread);
          });
        } else if (message.type === 'twin_call') {
          const served = options.twin
            ? options.twin(message.op, message.args, toolSignal()).catch((error: Error) => twinUnavailable(error.message))
            : Promise.resolve(twinUnavailable('this executor serves no digital twin'));
          void served.then((reply) => {
            if (!settled) thread.worker.postMessage({ type: 'tool_reply', callId: message.callId, ...reply } satisfies ToThread);
          });
        }
      };
      thread.worker.on('message', onMessage);
      thread.worker.on('exit', onExit);
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
      thread.worker.postMessage({ type: 'run', runId, ...request } satisfies ToThread);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    if (this.growth) clearTimeout(this.growth);
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error('sandbox pool is closed'));
    await Promise.all([...this.all].map((thread) => thread.worker.terminate()));
    this.all.clear();
    this.idle.length = 0;
  }

  /** An idle thread; else a new one while there are none; else the first to become free (see grow). */
  private acquire(): Promise<SandboxThread> {
    if (this.closed) return Promise.reject(new Error('sandbox pool is closed'));
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(this.claim(idle));
    if (this.all.size === 0) return Promise.resolve(this.claim(this.spawn()));
    return new Promise<SandboxThread>((resolve, reject) => {
      this.waiting.push({ take: (thread) => resolve(this.claim(thread)), fail: reject, since: performance.now() });
      this.grow();
    });
  }

  /**
   * When a run has waited spawnAfterMs for a thread, one more thread is started (one at a time, up to
   * maxThreads): short runs free their thread sooner than that, so the pool stays small, however
   * steadily runs queue behind each other; long ones (tool calls, slow handlers) make it grow to what
   * they need. A thread start costs a new V8 isolate loading the module runtime, the SDK and zod: far
   * more than many short runs.
   */
  private grow(): void {
    if (this.growth || this.closed || this.waiting.length === 0 || this.all.size >= this.options.maxThreads) return;
    const spawnAfterMs = this.options.spawnAfterMs ?? SPAWN_AFTER_MS;
    const oldest = this.waiting[0] as (typeof this.waiting)[number];
    this.growth = setTimeout(
      () => {
        // The timer stays in `growth` while the new thread starts, so that one start is under way at a time.
        if (this.waiting.length === 0 || this.closed || this.all.size >= this.options.maxThreads) return void (this.growth = null);
        // The run this timer was for may have got a thread meanwhile: wait for the one now oldest.
        if (performance.now() - (this.waiting[0] as (typeof this.waiting)[number]).since < spawnAfterMs) {
          this.growth = null;
          return this.grow();
        }
        const thread = this.spawn();
        const handOver = () => {
          this.growth = null;
          if (this.all.has(thread)) this.release(thread);
          this.grow();
        };
        void thread.ready.then(handOver, handOver);
      },
      Math.max(0, oldest.since + spawnAfterMs - performance.now()),
    );
  }

  private claim(thread: SandboxThread): SandboxThread {
    thread.busy = true;
    return thread;
  }

  private release(thread: SandboxThread): void {
    thread.busy = false;
    const waiter = this.closed ? undefined : this.waiting.shift();
    // A thread carrying the compiler serves the runs waiting now (more new packages compile without
    // loading it again), and is retired when none wait; its successor reads the compiled packages from
    // the loader's cache, without the compiler.
    if (waiter) waiter.take(thread);
    else if (this.closed || thread.retire) this.discard(thread);
    else {
      thread.idleSince = Date.now();
      this.idle.push(thread);
    }
  }

  /** Ends threads idle for idleRetireMs, oldest first, down to the number warm() started. */
  private retireIdle(): void {
    const before = Date.now() - (this.options.idleRetireMs ?? IDLE_RETIRE_MS);
    while (this.all.size > this.minThreads && this.idle.length > 0 && (this.idle[0]?.idleSince ?? 0) < before) {
      this.discard(this.idle.shift() as SandboxThread);
    }
  }

  private discard(thread: SandboxThread): void {
    this.all.delete(thread);
    void thread.worker.terminate();
    // A run waiting for a thread gets a new one in this one's place.
    if (!this.closed && this.waiting.length > 0 && this.all.size < this.options.maxThreads) {
      (this.waiting.shift() as (typeof this.waiting)[number]).take(this.spawn());
    }
  }

  private spawn(): SandboxThread {
    const worker = new Worker(this.threadEntry, {
      env: minimalEnvironment(),
      resourceLimits: this.options.resourceLimits,
      stdout: false,
      stderr: false,
    });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: ToParent) => {
        if (message.type !== 'ready') return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    // An error after start (e.g. an uncaught exception from a handler's stray timer) ends the thread.
    worker.on('error', () => undefined);
    const thread: SandboxThread = { worker, ready, busy: false, retire: false, idleSince: Date.now() };
    this.all.add(thread);
    worker.once('exit', () => {
      this.all.delete(thread);
      const index = this.idle.indexOf(thread);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return thread;
  }
}

function twinUnavailable(message: string) {
  return { ok: false, error: { code: 'HANDLER_ERROR' as const, message, details: { reason: 'UNAVAILABLE' } } };
}

function cancelledFrom(error: ExecutionError): ExecutionError {
  return { code: 'CANCELLED', message: 'Execution cancelled', details: { handler_error: error } };
}

async function callTool(
  bridge: McpBridge,
  signal: AbortSignal,
  op: string,
  args: unknown[],
): Promise<{ ok: boolean; value?: unknown; error?: ExecutionError }> {
  try {
    if (op === 'invoke') {
      const [toolId, params, invokeOptions] = args as [string, Record<string, unknown>, { timeoutMs?: number } | undefined];
      return { ok: true, value: await bridge.invoke(toolId, params, { timeoutMs: invokeOptions?.timeoutMs, signal }) };
    }
    if (op === 'isAvailable') return { ok: true, value: await bridge.isAvailable(args[0] as string) };
    return { ok: true, value: await bridge.listTools(args[0] as string | undefined) };
  } catch (error) {
    const typed = error as { code?: string; message?: string; details?: Record<string, unknown> };
    const code = typed.code === 'TOOL_TIMEOUT' || typed.code === 'PRECONDITION_FAILED' ? typed.code : 'TOOL_ERROR';
    const message = (typed.message ?? String(error)).replace(/^Tool '[^']*' (failed: )?/, '');
    return { ok: false, error: { code, message, details: typed.details ?? {} } };
  }
}
