/**
 * Entry of a sandbox process: runs the handler of one package, one run at a time (in the order handed), inside bubblewrap
 * (see handler-launch.ts). It has no network, no platform variable and no file of the host beyond the
 * runtime, its package and its scratch directory; tool calls, twin calls and log lines go to the
 * executor as frames on fd 3, which it answers there. The executor trusts nothing this process says.
 */
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import { getHeapStatistics } from 'node:v8';
import type { McpBridge, SkillContext, SkillHandlerClass, SkillLogger, TwinApi, WorkProductContent } from '@skill-registry/sdk';
import { LRUCache } from 'lru-cache';
// The handler loader and the code part of a package check, not the rest of package validation.
import { inspectPackageCode } from '#skill-loader/code-inspection.js';
import { HandlerLoader } from '#skill-loader/handler-loader.js';
import { FrameChannel } from './frame-channel.js';
import type { AbortRequest, FromSandbox, InspectRequest, RunRequest, ToolReply, ToSandbox, TwinOp } from './sandbox-protocol.js';
import { SANDBOX_CHANNEL_FD, type HandlerSandboxHostOptions } from './sandbox-host-options.js';

const options = JSON.parse(process.argv[2] ?? '{}') as HandlerSandboxHostOptions;
// The package's TypeScript was transpiled by the executor (precompiledDir); what was not, jiti's Babel does here.
const loader = HandlerLoader.create({ transpiler: 'babel', cacheDir: false, precompiledDir: options.precompiledDir });
/** Handler classes by package content (a process serves one package; the bound only matters if that changes). */
const handlers = new LRUCache<string, SkillHandlerClass>({ max: 4 });
const pendingTools = new Map<
  number,
  { toolId: string; twin: boolean; resolve: (value: unknown) => void; reject: (error: unknown) => void }
>();
const aborts = new Map<number, AbortController>();
let nextCallId = 1;

const socket = new net.Socket({ fd: SANDBOX_CHANNEL_FD, readable: true, writable: true });
const channel = new FrameChannel(
  socket,
  options.maxFrameBytes,
  (message) => receive(message as ToSandbox),
  () => process.exit(70),
);
// The executor closed the pipe (it stopped this process, or ended): nothing left to do.
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(0));

const send = (message: FromSandbox) => {
  if (message.type === 'result') {
    const used = process.cpuUsage();
    message.cpuMs = (used.user + used.system) / 1000;
    message.heapMb = getHeapStatistics().used_heap_size / (1024 * 1024);
  }
  channel.send(message);
};

interface ZodLike {
  safeParse(
    value: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}

type ErrorClass = new (...args: never[]) => Error;
/** The SDK copy skill packages get (through the loader's runtime), so handlers can `instanceof` its errors. */
const packageSdk = loader.packageSdk as Record<string, ErrorClass>;

/** A tool failure reported by the parent, as the SDK error a handler expects. */
function toolError(failure: { code: string; message: string; details: Record<string, unknown> }, toolId: string): Error {
  const construct = (name: string, ...args: unknown[]) => new (packageSdk[name] as unknown as new (...a: unknown[]) => Error)(...args);
  if (failure.code === 'TOOL_TIMEOUT') return construct('McpTimeoutError', toolId, (failure.details.timeoutMs as number | null) ?? null);
  if (failure.code === 'PRECONDITION_FAILED') return construct('SkillPreconditionError', toolId, [failure.message]);
  return construct('McpToolError', toolId, failure.message, failure.details);
}

function bridgeFor(runId: number): McpBridge {
  const call = (op: 'invoke' | 'isAvailable' | 'listTools', args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const callId = nextCallId++;
      pendingTools.set(callId, { toolId: String(args[0] ?? ''), twin: false, resolve, reject });
      // Signals cannot cross threads; the parent applies the execution's own signal and the timeout.
      const transferable =
        op === 'invoke' ? [args[0], args[1], { timeoutMs: (args[2] as { timeoutMs?: number } | undefined)?.timeoutMs }] : args;
      send({ type: 'tool_call', runId, callId, op, args: transferable });
    });
  return {
    invoke: (toolId, params, options) => call('invoke', [toolId, params, options]) as Promise<Record<string, unknown>>,
    isAvailable: (toolId) => call('isAvailable', [toolId]) as Promise<boolean>,
    listTools: (capability) => call('listTools', [capability]) as ReturnType<McpBridge['listTools']>,
  };
}

/** The twin as the handler sees it: each call a message to the executor, which serves and records it. */
function twinFor(runId: number): TwinApi {
  const call = (op: TwinOp, args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      const callId = nextCallId++;
      pendingTools.set(callId, { toolId: op, twin: true, resolve, reject });
      send({ type: 'twin_call', runId, callId, op, args });
    });
  return {
    getWorkProduct: (id, options) => call('getWorkProduct', [id, options ?? {}]) as ReturnType<TwinApi['getWorkProduct']>,
    readContent: async (id, options) => {
      const content = (await call('readContent', [id, options ?? {}])) as Omit<WorkProductContent, 'text'>;
      const bytes = new Uint8Array(content.bytes);
      return { ...content, bytes, text: () => new TextDecoder().decode(bytes) };
    },
    putWorkProduct: (request) => call('putWorkProduct', [request]) as ReturnType<TwinApi['putWorkProduct']>,
    listWorkProducts: (options) => call('listWorkProducts', [options ?? {}]) as ReturnType<TwinApi['listWorkProducts']>,
    getConstraints: (id, options) => call('getConstraints', [id, options ?? {}]) as ReturnType<TwinApi['getConstraints']>,
  };
}

/** A twin failure reported by the parent, as the SDK's TwinError (its reason decides the execution's error code). */
function twinError(failure: { message: string; details: Record<string, unknown> }): Error {
  const TwinError = packageSdk.TwinError as unknown as new (reason: unknown, message: string, details: Record<string, unknown>) => Error;
  const { reason, ...details } = failure.details;
  return new TwinError(reason ?? 'UNAVAILABLE', failure.message, details);
}

/**
 * Log lines a run sends per second at most; more are dropped here (the executor would end a process that
 * floods it, and keeps only a bounded number per execution anyway). Counted per run: a chatty run must
 * not silence the next run of the same process (it did, within the same second).
 */
const LOG_LINES_PER_SECOND = 500;
const MAX_LOG_MESSAGE_CHARS = 16 * 1024;
const logWindows = new Map<number, { second: number; sent: number }>();

function loggerFor(runId: number, bindings: Record<string, unknown>): SkillLogger {
  const log =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields: Record<string, unknown> = {}) => {
      const second = Math.floor(performance.now() / 1000);
      // A stray timer of a run that ended: the executor drops its lines anyway.
      if (!aborts.has(runId)) return;
      let window = logWindows.get(runId);
      if (!window || window.second !== second) logWindows.set(runId, (window = { second, sent: 0 }));
      if (++window.sent > LOG_LINES_PER_SECOND) return;
      send({ type: 'log', runId, level, message: String(message).slice(0, MAX_LOG_MESSAGE_CHARS), fields: { ...bindings, ...fields } });
    };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (more) => loggerFor(runId, { ...bindings, ...more }),
  };
}

async function handlerFor(request: RunRequest): Promise<SkillHandlerClass> {
  const key = `${request.packagePath}#${request.contentHash}`;
  let handler = handlers.get(key);
  if (!handler) {
    handler = await loader.loadHandlerClass(request.packagePath, {
      name: request.skillName,
      input_schema: request.inputSchemaRef,
      output_schema: request.outputSchemaRef,
    });
    handlers.set(key, handler);
  }
  return handler;
}

function issuesOf(error: { issues: { path: PropertyKey[]; message: string }[] }) {
  return error.issues.map((issue) => ({ pointer: '/' + issue.path.map(String).join('/'), message: issue.message }));
}

/**
 * The scratch directory is the package's, not a run's: what one run left there, the next one must not see.
 * Listed with one synchronous call: it is almost always empty, and an asynchronous listing is a round trip
 * through libuv's thread pool (two thread wake-ups) before every run.
 */
async function emptyScratch(): Promise<void> {
  if (!options.scratchDir) return;
  let entries: string[];
  try {
    entries = readdirSync(options.scratchDir);
  } catch {
    return;
  }
  if (entries.length === 0) return;
  await Promise.all(entries.map((entry) => rm(`${options.scratchDir}/${entry}`, { recursive: true, force: true }).catch(() => undefined)));
}

/** Runs one request; true when it succeeded (a failed run may have left the process in any state). */
async function run(request: RunRequest): Promise<boolean> {
  await emptyScratch();
  const controller = new AbortController();
  aborts.set(request.runId, controller);
  const fail = (code: string, message: string, details: Record<string, unknown> = {}): false => {
    send({ type: 'result', runId: request.runId, outcome: 'error', error: { code: code as never, message, details } });
    return false;
  };
  try {
    const Handler = await handlerFor(request);
    // Not a second platform check: the registry checked the input once and the executor checks the output once
    // (HandlerAttempt), outside this untrusted process. These parses are the SDK's handler contract: they give
    // execute() the value its zod schema types (defaults, transforms) and shape what it returns the same way.
    const input = (Handler.inputSchema as ZodLike).safeParse(request.input);
    if (!input.success) return fail('INPUT_INVALID', 'Input does not match the input schema', { errors: issuesOf(input.error) });
    const context: SkillContext = {
      mcp: bridgeFor(request.runId),
      twin: twinFor(request.runId),
      logger: loggerFor(request.runId, { executionId: request.executionId, sessionId: request.sessionId }),
      executionId: request.executionId,
      sessionId: request.sessionId,
      branch: request.branch,
      signal: controller.signal,
    };
    const handler = new Handler(context);
    const failures = await handler.validatePreconditions(input.data as never);
    if (failures.length > 0) return fail('PRECONDITION_FAILED', `Preconditions failed: ${failures.join('; ')}`, { failures });
    const raw = await handler.execute(input.data as never);
    const output = (Handler.outputSchema as ZodLike).safeParse(raw);
    if (!output.success)
      return fail('OUTPUT_INVALID', 'The handler returned output that does not match its output schema', {
        errors: issuesOf(output.error),
      });
    send({
      type: 'result',
      runId: request.runId,
      outcome: 'ok',
      output: JSON.parse(JSON.stringify(output.data)) as Record<string, unknown>,
    });
    return true;
  } catch (error) {
    const typed = error as { code?: unknown; message?: string; details?: unknown; name?: string; stack?: string };
    const known = ['PRECONDITION_FAILED', 'TOOL_ERROR', 'TOOL_TIMEOUT', 'HANDLER_ERROR'];
    if (typeof typed.code === 'string' && known.includes(typed.code)) {
      return fail(typed.code, typed.message ?? typed.code, (typed.details as Record<string, unknown>) ?? {});
    }
    if (typed.name === 'SkillLoadError') return fail('HANDLER_ERROR', typed.message ?? 'handler could not be loaded', { load_error: true });
    return fail('HANDLER_ERROR', `${typed.name ?? 'Error'}: ${typed.message ?? String(error)}`, {
      stack: typed.stack?.split('\n').slice(0, 8).join('\n'),
    });
  } finally {
    aborts.delete(request.runId);
    logWindows.delete(request.runId);
  }
}

/** The registry's check of a package's code (PackageInspector): JSON Schemas and findings, nothing run but the package's modules. */
function inspect(request: InspectRequest): void {
  const inspection = inspectPackageCode(loader, request.packagePath, request.references, request.files);
  // Within the protocol's bounds (the receiver checks shape and sizes, and ends a process that passes them).
  const issues = inspection.issues.slice(0, 200).map((issue) => ({
    ...issue,
    path: issue.path.slice(0, 1024),
    message: issue.message.slice(0, MAX_LOG_MESSAGE_CHARS),
    hint: issue.hint.slice(0, MAX_LOG_MESSAGE_CHARS),
  }));
  // JSON only: a schema may carry values a frame cannot.
  const message = JSON.parse(JSON.stringify({ ...inspection, issues, type: 'inspected', runId: request.runId }));
  send(message as FromSandbox);
}

/**
 * Runs wait here, in order, while one is under way: the executor may hand the process its next run before the
 * current one ends, so that it goes on without waiting to be woken. After a run that failed, none is started (the
 * executor ends the process and gives them to another); a waiting run the executor withdraws is never started.
 */
const waitingRuns: RunRequest[] = [];
let running = false;
let spent = false;

async function runInTurn(request: RunRequest): Promise<void> {
  waitingRuns.push(request);
  if (running) return;
  running = true;
  for (let next = waitingRuns.shift(); next && !spent; next = waitingRuns.shift()) spent = !(await run(next).catch(() => false));
  running = false;
}

function withdraw(runId: number): void {
  const index = waitingRuns.findIndex((request) => request.runId === runId);
  if (index < 0) return;
  waitingRuns.splice(index, 1);
  send({ type: 'withdrawn', runId });
}

function receive(message: ToSandbox): void {
  if (message.type === 'run') void runInTurn(message);
  else if (message.type === 'withdraw') withdraw(message.runId);
  else if (message.type === 'inspect') inspect(message);
  else if (message.type === 'abort') aborts.get((message as AbortRequest).runId)?.abort(new Error('execution cancelled'));
  else if (message.type === 'tool_reply') {
    const reply = message as ToolReply;
    const pending = pendingTools.get(reply.callId);
    if (!pending) return;
    pendingTools.delete(reply.callId);
    const failure = reply.error ?? { code: 'TOOL_ERROR' as const, message: 'call failed', details: {} };
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(pending.twin ? twinError(failure) : toolError(failure, pending.toolId));
  }
}
// The working directory is the scratch directory already (bwrap --chdir, or the child's cwd): the permission model forbids chdir.
send({ type: 'ready' });
