import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { runContractOf } from '#contracts/index.js';
import {
  BatchedExecutionWrites,
  type ExecutableVersion,
  type ExecutionError,
  type ExecutionRecord,
  ExecutionsRepository,
  isTerminal,
} from '#executions/index.js';
import { SpanKind, SpanStatusCode, extractTraceContext, inSpan, startSpan, traceparentOf } from '#observability/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import type { AttemptHooks } from '../hooks/attempt-hooks.js';
import { ExecutorHooks } from '../hooks/executor-hooks.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import type { HandlerOutcome } from '../scripts/script-tool-runner.js';
import { AttemptConclusion } from './attempt-conclusion.js';
import { AttemptStart } from './attempt-start.js';
import { AttemptTakeover } from './attempt-takeover.js';
import { writeAsIs, writeOnceRowExists, type RowWrite } from './early-row.js';
import { ExecutionEventPublisher } from './execution-event-publisher.js';
import { HandlerAttempt } from './handler-attempt.js';
import { RunningAttempts } from './running-attempts.js';

export { TOOL_BRIDGE } from './handler-attempt.js';

/**
 * One pickup of an execution's job: starts the attempt (or defers its start, see AttemptStart), has
 * HandlerAttempt run it, and AttemptConclusion end it: success, retry or failure. The database row is the truth;
 * BullMQ only carries the id and schedules retries.
 */
@Injectable()
export class ExecutionRunner {
  private readonly logger = new Logger(ExecutionRunner.name);
  private readonly versions = new LRUCache<string, ExecutableVersion>({ max: 1000 });

  constructor(
    private readonly executions: ExecutionsRepository,
    /** Attempt starts and finishes of this process, group-committed (the job is acknowledged only after). */
    private readonly writes: BatchedExecutionWrites,
    private readonly running: RunningAttempts,
    private readonly handler: HandlerAttempt,
    private readonly takeover: AttemptTakeover,
    private readonly conclusion: AttemptConclusion,
    private readonly events: ExecutionEventPublisher,
    private readonly hooks: ExecutorHooks,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
    private readonly metrics: ExecutorMetrics,
  ) {}

  /**
   * First attempts may run before their start is written (AttemptStart) only where a handler's run leaves
   * nothing behind but its channel calls: in the OS sandbox, with no directory shared writable into it (the
   * tests' SANDBOX_TEST_WRITABLE_DIR), and (see deferrable) no hook applying to its skill.
   */
  private get defersStarts(): boolean {
    const config = this.config;
    return config.ATTEMPT_START_DEFER_MS > 0 && config.HANDLER_SANDBOX === 'bubblewrap' && !config.SANDBOX_TEST_WRITABLE_DIR;
  }

  /**
   * One pickup of the job for `executionId`. Throws RetryLater to have BullMQ schedule another attempt.
   * `queued`: the QUEUED row as the registry enqueued it, on a job's first delivery (saves reading it back).
   * `early`: the job was enqueued alongside the row's insert (ExecutionJob.early), so the row may not be there yet: a
   * write that finds none waits for it (bounded, EARLY_JOB_ROW_WAIT_MS) before the pickup concludes there is none.
   */
  async run(executionId: string, queued: ExecutionRecord | null = null, early = false): Promise<void> {
    const rowWrite: RowWrite = early
      ? (write) => writeOnceRowExists(write, () => this.rowExists(executionId), this.config.EARLY_JOB_ROW_WAIT_MS)
      : writeAsIs;
    if (this.defersStarts) {
      const deferrable = await this.deferrable(executionId, queued);
      if (deferrable) return this.runDeferred(deferrable.execution, deferrable.version, deferrable.hooks, rowWrite);
    }
    // Common case: one statement, and the version from the cache; anything unusual is sorted out below.
    const fast = await rowWrite(() => this.writes.startAttempt(executionId));
    if (fast) {
      this.events.track(fast);
      const cached = await this.versionOf(fast.skillVersionId);
      if (cached) return this.runAttempt(fast, cached, AttemptStart.written(fast));
      const error: ExecutionError = { code: 'HANDLER_ERROR', message: `Skill version ${fast.skillVersionId} is missing`, details: {} };
      return this.conclusion.failed(executionId, fast.attempts, error);
    }
    const found = await this.executions.findForRun(executionId);
    if (!found) {
      this.logger.warn(
        early
          ? `job for execution ${executionId} ignored: its row never appeared (the registry's insert failed)`
          : `job for unknown execution ${executionId} ignored`,
      );
      return;
    }
    const { version } = found;
    let execution: ExecutionRecord | null = found.execution;
    this.events.track(execution);
    if (isTerminal(execution.status)) return;
    if (execution.cancelRequestedAt) return this.conclusion.cancelledBeforeStart(executionId, this.hooks.storedInput(execution, version));

    execution = await this.writes.startAttempt(executionId);
    if (!execution) {
      const current = await this.executions.findById(executionId);
      if (!current || isTerminal(current.status) || !current.attemptRunning) return;
      // An attempt is marked running. If its worker is gone (crash, kill -9) its heartbeat is stale
      // and this pickup takes it over; if the heartbeat is fresh, a live worker has it and this
      // duplicate delivery (a lapsed BullMQ lock, a takeover job) leaves it alone.
      if ((await this.takeover.takeOver(current, runContractOf(version, current.tool)?.idempotent ?? false)) !== 'released') return;
      execution = await this.writes.startAttempt(executionId);
      if (!execution) return;
    }

    return this.runAttempt(execution, version, AttemptStart.written(execution));
  }

  /**
   * A pickup whose first attempt may run before its start is written (see AttemptStart); null otherwise. Not when
   * any hook applies to the skill: a hook's effects (a webhook, a counted rate) are traces outside the sandbox. The
   * hooks taken here are the attempt's (a reload meanwhile cannot add one to a run already deferred).
   */
  private async deferrable(
    executionId: string,
    queued: ExecutionRecord | null,
  ): Promise<{ execution: ExecutionRecord; version: ExecutableVersion; hooks: AttemptHooks } | null> {
    const execution = queued ?? (await this.executions.findById(executionId));
    if (!execution || execution.status !== 'QUEUED' || execution.attempts !== 0 || execution.attemptRunning) return null;
    if (execution.cancelRequestedAt) return null;
    const version = await this.versionOf(execution.skillVersionId);
    // Script tools are not deferred: their runs are slow enough (an interpreter per run) for the write not to matter.
    if (!version || version.format === 'agent-skills') return null;
    const hooks = this.hooks.forAttempt({ ...execution, attempts: 1 }, version);
    if (!hooks.empty) return null;
    this.events.track(execution);
    return { execution, version, hooks };
  }

  private runDeferred(queued: ExecutionRecord, version: ExecutableVersion, hooks: AttemptHooks, rowWrite: RowWrite): Promise<void> {
    const controller = new AbortController();
    const start = AttemptStart.deferred({
      // Recorded as begun when the run began here (as its 'started' event is), not when the write goes out.
      write: () => this.writes.startAttempt(queued.id, start.elapsedMs),
      deferMs: this.config.ATTEMPT_START_DEFER_MS,
      onWritten: (record) => {
        this.running.started(queued.id, start, record.attempts);
        this.events.hold(queued.id, {
          type: 'started',
          at: new Date(Date.now() - start.elapsedMs).toISOString(),
          attempt: record.attempts,
        });
      },
      // Cancelled or decided while it ran: the run stops, and what it did is dropped (it left nothing behind).
      onRefused: () => controller.abort(),
      rowWrite,
    });
    // What the start will write (attempt 1), for the handler's context meanwhile.
    const execution: ExecutionRecord = { ...queued, status: 'RUNNING', attempts: 1, attemptRunning: true };
    return this.runAttempt(execution, version, start, controller, hooks);
  }

  private async runAttempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    start: AttemptStart,
    controller = new AbortController(),
    hooks: AttemptHooks = this.hooks.forAttempt(execution, version),
  ): Promise<void> {
    this.running.hold(execution.id, { attempt: execution.attempts, controller, start });
    try {
      await this.runHeldAttempt(execution, version, start, controller.signal, hooks);
    } finally {
      start.stopTimer();
      // Held (and heartbeated) until its outcome is written, also while that write waits out a database outage.
      this.running.release(execution.id, controller);
    }
  }

  /**
   * The attempt as a span of the execution's trace (the request's, carried on the row), after a span for
   * the time it waited in the queue; with export off these are no-ops that only pass the context on.
   */
  private runHeldAttempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    start: AttemptStart,
    signal: AbortSignal,
    hooks: AttemptHooks,
  ): Promise<void> {
    const parent = extractTraceContext({ traceparent: execution.traceParent ?? undefined });
    if (execution.attempts === 1) startSpan('execution.queue_wait', parent, { startTime: execution.createdAt }).span.end();
    const attributes = {
      'skill.name': version.name,
      'skill.version': version.version,
      'execution.id': execution.id,
      'execution.attempt': execution.attempts,
    };
    return inSpan(`execution.attempt ${version.name}`, parent, { kind: SpanKind.CONSUMER, attributes }, (span, attempt) =>
      this.runTracedAttempt(execution, version, start, signal, hooks, traceparentOf(attempt)).finally(() => {
        if (signal.aborted) span.setStatus({ code: SpanStatusCode.ERROR, message: 'cancelled' });
      }),
    );
  }

  private async runTracedAttempt(
    execution: ExecutionRecord,
    version: ExecutableVersion,
    start: AttemptStart,
    signal: AbortSignal,
    hooks: AttemptHooks,
    traceParent: string | null,
  ): Promise<void> {
    const executionId = execution.id;
    this.metrics.attemptStarted(execution);
    if (start.durable) this.events.hold(executionId, { type: 'started', at: now(), attempt: execution.attempts });
    // What this execution runs under (the version's own contract, or its tool's): the one rule, read once.
    const contract = runContractOf(version, execution.tool);
    const outcome = contract
      ? await this.handler.run({ execution, version, contract, start, hooks, signal, traceParent })
      : noSuchTool(version, execution.tool);
    await this.conclusion.outcome(execution, contract, outcome, start, hooks);
  }

  private async rowExists(executionId: string): Promise<boolean> {
    return (await this.executions.findById(executionId)) !== null;
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
