import { Inject, Injectable, Logger } from '@nestjs/common';
import type { McpBridge } from '@skill-registry/sdk';
import { LRUCache } from 'lru-cache';
import { JsonSchemaValidator, runContractOf, type RunContract } from '#contracts/index.js';
import { retryWhileUnavailable } from '#database/pg-pool.js';
import {
  type AttemptGuard,
  BatchedExecutionWrites,
  ExecutionEventLog,
  type ExecutableVersion,
  type ExecutionError,
  type ExecutionEvent,
  type ExecutionRecord,
  ExecutionsRepository,
  isRetryable,
  isTerminal,
  retryDelayMs,
} from '#executions/index.js';
import { PackageCache, PackageUnavailable } from '#package-store/index.js';
import { AttemptStart } from './attempt-start.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import { HookRefused, HookRunner } from '../hooks/hook-runner.js';
import { SandboxPool } from '#handler-sandbox/index.js';
import { TwinGateway } from '../twin/twin-gateway.js';
import { ScriptToolRunner, type HandlerOutcome } from '../scripts/script-tool-runner.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { ExecutionBridgeView, missingTools, silentLogger, type ToolCallEvent } from '#mcp-bridge/index.js';
import { SpanKind, SpanStatusCode, extractTraceContext, inSpan, startSpan, traceparentOf } from '#observability/index.js';

export const TOOL_BRIDGE = Symbol('TOOL_BRIDGE');

/** Thrown to BullMQ when an attempt failed and another one is due after `delayMs`. */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retry in ${delayMs} ms`);
    this.name = 'RetryLater';
  }
}

/**
 * Runs one attempt of an execution: preconditions → handler (isolated, hard timeout) → output
 * validation, and decides between success, retry and failure. The database row is the truth;
 * BullMQ only carries the id and schedules retries.
 */
@Injectable()
export class ExecutionRunner {
  private readonly logger = new Logger(ExecutionRunner.name);
  private readonly validator = new JsonSchemaValidator();
  /** Attempts this process runs (from start until their outcome is written), with their abort controller. */
  private readonly running = new Map<string, { attempt: number; controller: AbortController; start: AttemptStart }>();
  private readonly versions = new LRUCache<string, ExecutableVersion>({ max: 1000 });
  /** Events held back briefly per execution, to go out with the next one (see deferEvent). */
  private readonly heldEvents = new Map<string, { events: ExecutionEvent[]; timer: NodeJS.Timeout }>();

  constructor(
    private readonly executions: ExecutionsRepository,
    /** Attempt starts and finishes of this process, group-committed (the job is acknowledged only after). */
    private readonly writes: BatchedExecutionWrites,
    private readonly events: ExecutionEventLog,
    private readonly sandbox: SandboxPool,
    private readonly hooks: HookRunner,
    private readonly packages: PackageCache,
    private readonly scripts: ScriptToolRunner,
    @Inject(TOOL_BRIDGE) private readonly bridge: McpBridge,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
    private readonly metrics: ExecutorMetrics,
    private readonly twin: TwinGateway,
  ) {}

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** The attempts this process holds, for the heartbeat (those whose start is written: the others have no row to renew). */
  runningAttempts(): { id: string; attempt: number }[] {
    return [...this.running].filter(([, { start }]) => start.durable).map(([id, { attempt }]) => ({ id, attempt }));
  }

  /**
   * First attempts may run before their start is written (AttemptStart) only where a handler's run leaves
   * nothing behind but its channel calls: in the OS sandbox, with no directory shared writable into it (the
   * tests' SANDBOX_TEST_WRITABLE_DIR), and no hooks around it.
   */
  private get defersStarts(): boolean {
    const config = this.config;
    return (
      config.ATTEMPT_START_DEFER_MS > 0 && config.HANDLER_SANDBOX === 'bubblewrap' && !config.SANDBOX_TEST_WRITABLE_DIR && this.hooks.empty
    );
  }

  /** Aborts a running execution of this process; false when it does not run here. */
  cancelLocal(executionId: string): boolean {
    const entry = this.running.get(executionId);
    if (!entry) return false;
    entry.controller.abort();
    return true;
  }

  /**
   * Stops attempts that are no longer this worker's (another worker took them over after missed
   * heartbeats). Their outcome is discarded: every write about them is guarded by the attempt.
   */
  abandon(executionIds: string[]): void {
    for (const id of executionIds) {
      const entry = this.running.get(id);
      if (!entry) continue;
      this.logger.warn(`attempt ${entry.attempt} of ${id} was taken over by another worker; stopping it`);
      entry.controller.abort();
    }
  }

  /**
   * Settles an attempt whose worker stopped sending heartbeats for LOST_AFTER_MS: a non-idempotent
   * execution (or one without attempts left) fails with WORKER_LOST, never running again; an
   * idempotent one is released for another attempt. Every write re-checks, in the database, that
   * the heartbeat is still stale, so a live worker whose heartbeat lands first keeps its attempt.
   * Returns what was decided, or null when nothing was (the worker is alive, or someone else decided).
   */
  async takeOver(execution: ExecutionRecord, idempotent: boolean): Promise<'failed' | 'released' | null> {
    const guard: AttemptGuard = { attempt: execution.attempts, staleForMs: this.config.LOST_AFTER_MS };
    const lost: ExecutionError = {
      code: 'WORKER_LOST',
      message: `The worker running attempt ${execution.attempts} stopped before it finished`,
      details: { attempt: execution.attempts },
    };
    if (!idempotent || execution.attempts >= execution.maxAttempts) {
      const failed = await this.writes.finish(execution.id, 'FAILED', { error: lost }, guard);
      if (!failed) return null;
      this.metrics.takenOver(execution, 'failed');
      this.metrics.concluded(failed);
      await this.emit(execution.id, { type: 'failed', at: now(), attempt: execution.attempts, error: lost });
      return 'failed';
    }
    if (!(await this.executions.releaseLostAttempt(execution.id, lost, guard))) return null;
    this.metrics.takenOver(execution, 'released');
    await this.emit(execution.id, { type: 'attempt_failed', at: now(), attempt: execution.attempts, error: lost, next_delay_ms: 0 });
    return 'released';
  }

  /**
   * One pickup of the job for `executionId`. Throws RetryLater to have BullMQ schedule another attempt.
   * `queued`: the QUEUED row as the registry enqueued it, on a job's first delivery (saves reading it back).
   */
  async run(executionId: string, queued: ExecutionRecord | null = null): Promise<void> {
    if (this.defersStarts) {
      const deferrable = await this.deferrable(executionId, queued);
      if (deferrable) return this.runDeferred(deferrable.execution, deferrable.version);
    }
    // Common case: one statement, and the version from the cache; anything unusual is sorted out below.
    const fast = await this.writes.startAttempt(executionId);
    if (fast) {
      const cached = await this.versionOf(fast.skillVersionId);
      if (cached) return this.runAttempt(fast, cached, AttemptStart.written(fast));
      const error: ExecutionError = { code: 'HANDLER_ERROR', message: `Skill version ${fast.skillVersionId} is missing`, details: {} };
      const guard = { attempt: fast.attempts };
      return this.conclude(executionId, 'FAILED', { error }, { type: 'failed', at: now(), attempt: fast.attempts, error }, guard);
    }
    const found = await this.executions.findForRun(executionId);
    if (!found) {
      this.logger.warn(`job for unknown execution ${executionId} ignored`);
      return;
    }
    const { version } = found;
    let execution: ExecutionRecord | null = found.execution;
    if (isTerminal(execution.status)) return;
    if (execution.cancelRequestedAt) {
      await this.conclude(executionId, 'CANCELLED', {}, { type: 'cancelled', at: now(), reason: 'cancelled before it started' });
      return;
    }

    execution = await this.writes.startAttempt(executionId);
    if (!execution) {
      const current = await this.executions.findById(executionId);
      if (!current || isTerminal(current.status) || !current.attemptRunning) return;
      // An attempt is marked running. If its worker is gone (crash, kill -9) its heartbeat is stale
      // and this pickup takes it over; if the heartbeat is fresh, a live worker has it and this
      // duplicate delivery (a lapsed BullMQ lock, a takeover job) leaves it alone.
      if ((await this.takeOver(current, runContractOf(version, current.tool)?.idempotent ?? false)) !== 'released') return;
      execution = await this.writes.startAttempt(executionId);
      if (!execution) return;
    }

    return this.runAttempt(execution, version, AttemptStart.written(execution));
  }

  /** A pickup whose first attempt may run before its start is written (see AttemptStart); null otherwise. */
  private async deferrable(
    executionId: string,
    queued: ExecutionRecord | null,
  ): Promise<{ execution: ExecutionRecord; version: ExecutableVersion } | null> {
    const execution = queued ?? (await this.executions.findById(executionId));
    if (!execution || execution.status !== 'QUEUED' || execution.attempts !== 0 || execution.attemptRunning) return null;
    if (execution.cancelRequestedAt) return null;
    const version = await this.versionOf(execution.skillVersionId);
    // Script tools are not deferred: their runs are slow enough (an interpreter per run) for the write not to matter.
    if (!version || version.format === 'agent-skills') return null;
    return { execution, version };
  }

  private runDeferred(queued: ExecutionRecord, version: ExecutableVersion): Promise<void> {
    const controller = new AbortController();
    const start = AttemptStart.deferred({
      write: () => this.writes.startAttempt(queued.id),
      deferMs: this.config.ATTEMPT_START_DEFER_MS,
      onWritten: (record) => {
        const entry = this.running.get(queued.id);
        if (entry?.start === start) entry.attempt = record.attempts;
        this.deferEvent(queued.id, { type: 'started', at: new Date(Date.now() - start.elapsedMs).toISOString(), attempt: record.attempts });
      },
      // Cancelled or decided while it ran: the run stops, and what it did is dropped (it left nothing behind).
      onRefused: () => controller.abort(),
    });
    // What the start will write (attempt 1), for the handler's context meanwhile.
    const execution: ExecutionRecord = { ...queued, status: 'RUNNING', attempts: 1, attemptRunning: true };
    return this.runAttempt(execution, version, start, controller);
  }

  private async runAttempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    start: AttemptStart,
    controller = new AbortController(),
  ): Promise<void> {
    this.running.set(execution.id, { attempt: execution.attempts, controller, start });
    try {
      await this.runHeldAttempt(execution, version, start, controller.signal);
    } finally {
      start.stopTimer();
      // Held (and heartbeated) until its outcome is written, also while that write waits out a database outage.
      if (this.running.get(execution.id)?.controller === controller) this.running.delete(execution.id);
    }
  }

  /**
   * The attempt as a span of the execution's trace (the request's, carried on the row), after a span for
   * the time it waited in the queue; with export off these are no-ops that only pass the context on.
   */
  private runHeldAttempt(execution: ExecutionRecord, version: ExecutableVersion, start: AttemptStart, signal: AbortSignal): Promise<void> {
    const parent = extractTraceContext({ traceparent: execution.traceParent ?? undefined });
    if (execution.attempts === 1) startSpan('execution.queue_wait', parent, { startTime: execution.createdAt }).span.end();
    const attributes = {
      'skill.name': version.name,
      'skill.version': version.version,
      'execution.id': execution.id,
      'execution.attempt': execution.attempts,
    };
    return inSpan(`execution.attempt ${version.name}`, parent, { kind: SpanKind.CONSUMER, attributes }, (span, attempt) =>
      this.runTracedAttempt(execution, version, start, signal, traceparentOf(attempt)).finally(() => {
        if (signal.aborted) span.setStatus({ code: SpanStatusCode.ERROR, message: 'cancelled' });
      }),
    );
  }

  private async runTracedAttempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    start: AttemptStart,
    signal: AbortSignal,
    traceParent: string | null,
  ): Promise<void> {
    const executionId = execution.id;
    this.metrics.attemptStarted(execution);
    if (start.durable) this.deferEvent(executionId, { type: 'started', at: now(), attempt: execution.attempts });
    // What this execution runs under (the version's own contract, or its tool's): the one rule, read once.
    const contract = runContractOf(version, execution.tool);
    const outcome = contract
      ? await this.attempt(execution, version, contract, start, signal, traceParent)
      : noSuchTool(version, execution.tool);
    if (outcome.ok && start.untouched) {
      // Done before its start was ever needed: start and end in one statement.
      start.stopTimer();
      const finished = await this.durably(() =>
        this.writes.finishUnstarted(executionId, 'SUCCEEDED', { output: outcome.output }, start.elapsedMs),
      );
      if (!finished) return this.settleRefused(executionId);
      this.deferEvent(executionId, {
        type: 'started',
        at: new Date(Date.now() - start.elapsedMs).toISOString(),
        attempt: finished.attempts,
      });
      this.metrics.concluded(finished);
      await this.emit(executionId, { type: 'succeeded', at: now(), attempt: finished.attempts, duration_ms: finished.durationMs ?? 0 });
      return;
    }
    // Any other end goes the usual way, from a written start.
    const started = await this.durably(() => start.ensure());
    start.stopTimer();
    if (!started) return this.settleRefused(executionId);
    const guard: AttemptGuard = { attempt: started.attempts };
    execution = { ...execution, attempts: started.attempts };
    if (outcome.ok) {
      await this.conclude(
        executionId,
        'SUCCEEDED',
        { output: outcome.output },
        { type: 'succeeded', at: now(), attempt: execution.attempts, duration_ms: 0 },
        guard,
      );
      return;
    }
    const error = outcome.error;
    await this.hooks.onError({ execution, attempt: execution.attempts, error });
    if (error.code === 'CANCELLED') {
      await this.conclude(executionId, 'CANCELLED', { error }, { type: 'cancelled', at: now(), reason: error.message }, guard);
      return;
    }
    if (contract && isRetryable(error, contract.idempotent) && execution.attempts < execution.maxAttempts) {
      const delay = retryDelayMs(execution.attempts + 1, this.config.RETRY_BASE_MS, this.config.RETRY_MAX_MS);
      if (await this.durably(() => this.executions.endAttemptForRetry(executionId, error, guard))) {
        this.metrics.retried(execution, error);
        await this.emit(executionId, { type: 'attempt_failed', at: now(), attempt: execution.attempts, error, next_delay_ms: delay });
        throw new RetryLater(delay);
      }
      return;
    }
    await this.conclude(executionId, 'FAILED', { error }, { type: 'failed', at: now(), attempt: execution.attempts, error }, guard);
  }

  /**
   * A deferred start that could not be written: the execution was cancelled (or decided) while its first attempt
   * ran. That run is dropped; a cancellation nobody concluded yet is concluded here, as a pickup would.
   */
  private async settleRefused(executionId: string): Promise<void> {
    this.takeHeldEvents(executionId);
    const current = await this.durably(() => this.executions.findById(executionId));
    if (!current || isTerminal(current.status) || current.attemptRunning || !current.cancelRequestedAt) return;
    await this.conclude(executionId, 'CANCELLED', {}, { type: 'cancelled', at: now(), reason: 'cancelled before it started' });
  }

  /** A write of work already done: waits out a database outage (bounded) rather than losing the outcome. */
  private durably<T>(write: () => Promise<T>): Promise<T> {
    return retryWhileUnavailable(write, this.config.DURABLE_WRITE_MAX_WAIT_MS, (error) =>
      this.logger.warn(`database unavailable, retrying a result write: ${(error as Error).message}`),
    );
  }

  /**
   * Skill versions by id. Safe to cache: what the executor reads (package path, schemas, limits) is
   * fixed once a version is REGISTERED; DRAFT versions are never executed.
   */
  private async versionOf(skillVersionId: string): Promise<ExecutableVersion | null> {
    let version = this.versions.get(skillVersionId);
    if (!version) {
      version = (await this.executions.findVersion(skillVersionId)) ?? undefined;
      if (!version) return null;
      this.versions.set(skillVersionId, version);
    }
    return version;
  }

  private async attempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    contract: RunContract,
    start: AttemptStart,
    signal: AbortSignal,
    traceParent: string | null,
  ): Promise<HandlerOutcome> {
    try {
      await this.hooks.beforeExecute({ execution, attempt: execution.attempts });
      const missing = await missingTools(this.bridge, version.toolsRequired);
      if (missing.length > 0) {
        return {
          ok: false,
          error: {
            code: 'PRECONDITION_FAILED',
            message: `Required tools are not available: ${missing.join(', ')}`,
            details: { tools: missing },
          },
        };
      }
      // The one point where the formats differ: what runs as the handler.
      const outcome =
        version.format === 'agent-skills'
          ? await this.scripts.run(execution, version, contract, signal)
          : await this.runHandler(execution, version, contract, start, signal, traceParent);
      if (!outcome.ok) return outcome;
      // The stored JSON Schema is the contract agents rely on: check it, not only the handler's zod schema.
      // Keyed by tool too: the tools of one Agent Skills package share its content hash.
      const violations = contract.outputSchema
        ? this.validator.validate(contract.outputSchema, outcome.output, `${version.contentHash}:${contract.tool?.name ?? ''}:output`)
        : [];
      if (violations.length > 0) {
        return {
          ok: false,
          error: {
            code: 'OUTPUT_INVALID',
            message: 'The handler output does not match the output schema',
            details: { errors: violations },
          },
        };
      }
      await this.hooks.afterExecute({ execution, attempt: execution.attempts, output: outcome.output });
      return outcome;
    } catch (error) {
      if (error instanceof HookRefused) return { ok: false, error: error.error };
      if (error instanceof PackageUnavailable)
        return { ok: false, error: { code: 'PRECONDITION_FAILED', message: error.message, details: {} } };
      return { ok: false, error: { code: 'HANDLER_ERROR', message: (error as Error).message, details: {} } };
    }
  }

  /** A TypeScript skill's handler, in a sandbox process of its package. */
  private async runHandler(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    contract: RunContract,
    start: AttemptStart,
    signal: AbortSignal,
    traceParent: string | null,
  ): Promise<HandlerOutcome> {
    // The bridge library's per-execution view reports every tool call; here they become execution events.
    const bridge = new ExecutionBridgeView(
      this.bridge,
      (call) => void this.emit(execution.id, toolEventOf(call)),
      { skillName: version.name, traceParent },
      silentLogger,
    );
    // Its log lines become `log` events too (bounded per execution), for SSE streams and MCP clients.
    const writeLog = this.events.logWriter(execution.id);
    // Only the bytes the registry stored run: the package comes from the store, verified, never from package_path.
    const packagePath = await this.packages.directory(version.contentHash);
    return this.sandbox.run(
      {
        executionId: execution.id,
        sessionId: execution.sessionId,
        branch: execution.branch,
        packagePath,
        contentHash: version.contentHash,
        skillName: version.name,
        inputSchemaRef: version.inputSchemaRef,
        outputSchemaRef: version.outputSchemaRef,
        input: execution.input,
      },
      {
        timeoutMs: contract.timeoutSeconds * 1000,
        signal,
        bridge,
        // Seed 000: a skill calls only the tools it declares.
        declaredTools: version.toolsRequired.map((tool) => tool.tool_id),
        onUndeclaredTool: (toolId) =>
          void this.emit(execution.id, {
            type: 'tool_completed',
            at: now(),
            tool_id: toolId,
            duration_ms: 0,
            ok: false,
            error: { code: 'PRECONDITION_FAILED', message: `Tool '${toolId}' is not declared in tools_required` },
          }),
        twin: this.twin.handlerFor({
          executionId: execution.id,
          branch: execution.branch,
          emit: (event) => void this.emit(execution.id, event),
        }),
        // What the handler does through the channel may leave traces (tool effects, twin revisions, events): its start is written first.
        beforeChannel: start.durable
          ? undefined
          : async () => {
              if (!(await start.ensure())) throw new Error('The execution was cancelled');
            },
        onLog: (level, message, fields) => {
          this.logger.log(`[${execution.skillName} ${execution.id}] ${level}: ${message} ${JSON.stringify(fields)}`);
          // A held 'started' goes out first: one connection, so the stream keeps the order of events.
          void this.emitEvents(execution.id, this.takeHeldEvents(execution.id));
          writeLog(level, message, fields).catch((error: Error) =>
            this.logger.debug(`could not publish a log line of ${execution.id}: ${error.message}`),
          );
        },
      },
    );
  }

  private async conclude(
    executionId: string,
    status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED',
    result: { output?: Record<string, unknown>; error?: ExecutionError },
    event: ExecutionEvent,
    guard?: AttemptGuard,
  ): Promise<void> {
    const finished = await this.durably(() => this.writes.finish(executionId, status, result, guard));
    if (!finished) {
      // Someone else decided first (a cancellation, or a takeover of this attempt) and published the end.
      this.takeHeldEvents(executionId);
      return;
    }
    if (event.type === 'succeeded') event.duration_ms = finished.durationMs ?? 0;
    this.metrics.concluded(finished);
    await this.emit(executionId, event);
  }

  /**
   * Publishes `event` within EVENT_HOLD_MS, together with the execution's next event if one comes
   * sooner: a short execution publishes 'started' and its end in one round trip, a long one shows
   * 'started' on its stream a few milliseconds late. The order of events never changes.
   */
  private deferEvent(executionId: string, event: ExecutionEvent): void {
    const held = this.heldEvents.get(executionId);
    if (held) {
      held.events.push(event);
      return;
    }
    const timer = setTimeout(() => void this.emitEvents(executionId, this.takeHeldEvents(executionId)), this.config.EVENT_HOLD_MS);
    this.heldEvents.set(executionId, { events: [event], timer });
  }

  private takeHeldEvents(executionId: string): ExecutionEvent[] {
    const held = this.heldEvents.get(executionId);
    if (!held) return [];
    clearTimeout(held.timer);
    this.heldEvents.delete(executionId);
    return held.events;
  }

  /** Publishes `event` after any held events of the execution; events of one execution go out in order on one connection. */
  private emit(executionId: string, event: ExecutionEvent): Promise<void> {
    return this.emitEvents(executionId, [...this.takeHeldEvents(executionId), event]);
  }

  private async emitEvents(executionId: string, events: ExecutionEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.events.append(executionId, events);
    } catch (error) {
      this.logger.warn(`could not publish ${events.map((event) => event.type).join(', ')} of ${executionId}: ${(error as Error).message}`);
    }
  }
}

function now(): string {
  return new Date().toISOString();
}

/** An execution naming a tool its version does not have (the registry refuses those; a stale row must not crash the executor). */
function noSuchTool(version: ExecutableVersion, tool: string | null): HandlerOutcome {
  const message = tool
    ? `Skill ${version.name} ${version.version} has no tool '${tool}'`
    : `Skill ${version.name} ${version.version} has tools and no handler of its own: the execution must name one of its tools`;
  return { ok: false, error: { code: 'HANDLER_ERROR', message, details: { tool } } };
}

function toolEventOf(call: ToolCallEvent): ExecutionEvent {
  if (call.type === 'tool_invoked') return { type: 'tool_invoked', at: call.at, tool_id: call.toolId };
  return {
    type: 'tool_completed',
    at: call.at,
    tool_id: call.toolId,
    duration_ms: Math.round(call.durationMs ?? 0),
    ok: call.ok ?? false,
    ...(call.error ? { error: call.error } : {}),
  };
}
