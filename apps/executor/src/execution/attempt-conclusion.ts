import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RunContract } from '#contracts/index.js';
import { retryWhileUnavailable } from '#database/pg-pool.js';
import {
  type AttemptGuard,
  BatchedExecutionWrites,
  type ExecutionError,
  type ExecutionEvent,
  type ExecutionRecord,
  ExecutionsRepository,
  isRetryable,
  isTerminal,
  RetryLater,
  retryDelayMs,
} from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import type { AttemptHooks } from '../hooks/attempt-hooks.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import type { HandlerOutcome } from '../scripts/script-tool-runner.js';
import type { AttemptStart } from './attempt-start.js';
import { ExecutionEventPublisher } from './execution-event-publisher.js';

/**
 * How an attempt ends, once its handler has an outcome: the write of its end (or, for a first attempt done
 * before its start was needed, start and end in one statement), the retry of a retryable failure, and the
 * end's event. Every write waits out a database outage (bounded) rather than lose work already done; a
 * write refused because someone else decided first (a cancellation, a takeover) drops the attempt's events.
 */
@Injectable()
export class AttemptConclusion {
  private readonly logger = new Logger(AttemptConclusion.name);

  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly writes: BatchedExecutionWrites,
    private readonly events: ExecutionEventPublisher,
    private readonly metrics: ExecutorMetrics,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  /**
   * Ends the attempt `execution` ran with `outcome`. Throws RetryLater when the failure is retried (the
   * attempt's end is written first), for the queue to deliver the job again after the delay. The attempt's hooks
   * run on_error for a failure and post_delivery after a stored end; what they redact is left out of the end's write.
   */
  async outcome(
    execution: ExecutionRecord,
    contract: RunContract | null,
    outcome: HandlerOutcome,
    start: AttemptStart,
    hooks: AttemptHooks,
  ): Promise<void> {
    const executionId = execution.id;
    start.markConcluding();
    // Deferred starts happen only for attempts no hook applies to (ExecutionRunner.deferrable): nothing to redact or run.
    if (outcome.ok && start.untouched) {
      // Done before its start was ever needed: start and end in one statement.
      start.stopTimer();
      const finished = await this.writeThroughOutage(() =>
        start.rowWrite(() => this.writes.finishUnstarted(executionId, 'SUCCEEDED', { output: outcome.output }, start.elapsedMs)),
      );
      if (!finished) return this.settleRefused(executionId);
      this.events.hold(executionId, {
        type: 'started',
        at: new Date(Date.now() - start.elapsedMs).toISOString(),
        attempt: finished.attempts,
      });
      this.metrics.concluded(finished);
      await this.events.publish(executionId, {
        type: 'succeeded',
        at: now(),
        attempt: finished.attempts,
        duration_ms: finished.durationMs ?? 0,
      });
      return;
    }
    // Any other end goes the usual way, from a written start.
    const started = await this.writeThroughOutage(() => start.ensure());
    start.stopTimer();
    if (!started) return this.settleRefused(executionId);
    const guard: AttemptGuard = { attempt: started.attempts };
    const attempt = started.attempts;
    const metadata = () => (hooks.metadata ? { metadata: hooks.metadata } : {});
    if (outcome.ok) {
      const finished = await this.end(
        executionId,
        'SUCCEEDED',
        hooks.stored(outcome.output),
        { type: 'succeeded', at: now(), attempt, duration_ms: 0, ...metadata() },
        guard,
      );
      if (finished) await hooks.postDelivery(finished);
      return;
    }
    const error = outcome.error;
    await hooks.onError(error);
    if (error.code === 'CANCELLED') {
      const finished = await this.end(
        executionId,
        'CANCELLED',
        { ...hooks.stored(undefined), error },
        { type: 'cancelled', at: now(), reason: error.message, ...metadata() },
        guard,
      );
      if (finished) await hooks.postDelivery(finished);
      return;
    }
    if (contract && isRetryable(error, contract.idempotent) && attempt < execution.maxAttempts) {
      const delay = retryDelayMs(attempt + 1, this.config.RETRY_BASE_MS, this.config.RETRY_MAX_MS);
      if (await this.writeThroughOutage(() => this.executions.endAttemptForRetry(executionId, error, guard))) {
        this.metrics.retried({ ...execution, attempts: attempt }, error);
        await this.events.publish(executionId, { type: 'attempt_failed', at: now(), attempt, error, next_delay_ms: delay });
        throw new RetryLater(delay);
      }
      return;
    }
    const finished = await this.end(
      executionId,
      'FAILED',
      { ...hooks.stored(undefined), error },
      { type: 'failed', at: now(), attempt, error, ...metadata() },
      guard,
    );
    if (finished) await hooks.postDelivery(finished);
  }

  /** Fails an attempt that could not run at all (e.g. its version is missing). */
  async failed(executionId: string, attempt: number, error: ExecutionError): Promise<void> {
    await this.end(executionId, 'FAILED', { error }, { type: 'failed', at: now(), attempt, error }, { attempt });
  }

  /** Concludes an execution cancelled before any attempt started (`input`: as the redact hooks leave it, when they do). */
  async cancelledBeforeStart(executionId: string, input?: Record<string, unknown>): Promise<void> {
    await this.end(executionId, 'CANCELLED', input ? { input } : {}, {
      type: 'cancelled',
      at: now(),
      reason: 'cancelled before it started',
    });
  }

  /**
   * A deferred start that could not be written: the execution was cancelled (or decided) while its first attempt
   * ran, or it has no row. That run is dropped; a cancellation nobody concluded yet is concluded here, as a pickup would.
   */
  private async settleRefused(executionId: string): Promise<void> {
    this.events.drop(executionId);
    const current = await this.writeThroughOutage(() => this.executions.findById(executionId));
    if (!current) {
      // Only a job enqueued alongside its row's insert runs without a row (ExecutionJob.early): that insert failed.
      this.logger.warn(`the run of execution ${executionId} is dropped: its row never appeared (the registry's insert failed)`);
      return;
    }
    if (isTerminal(current.status) || current.attemptRunning || !current.cancelRequestedAt) return;
    await this.cancelledBeforeStart(executionId);
  }

  /** Writes the end and publishes its event; the stored record, or null when someone else decided first. */
  private async end(
    executionId: string,
    status: 'SUCCEEDED' | 'FAILED' | 'CANCELLED',
    result: { input?: Record<string, unknown>; output?: Record<string, unknown>; error?: ExecutionError },
    event: ExecutionEvent,
    guard?: AttemptGuard,
  ): Promise<ExecutionRecord | null> {
    const finished = await this.writeThroughOutage(() => this.writes.finish(executionId, status, result, guard));
    if (!finished) {
      // Someone else decided first (a cancellation, or a takeover of this attempt) and published the end.
      this.events.drop(executionId);
      return null;
    }
    if (event.type === 'succeeded') event.duration_ms = finished.durationMs ?? 0;
    this.metrics.concluded(finished);
    await this.events.publish(executionId, event);
    return finished;
  }

  /** A write of work already done: waits out a database outage (bounded) rather than losing the outcome. */
  private writeThroughOutage<T>(write: () => Promise<T>): Promise<T> {
    return retryWhileUnavailable(write, this.config.DURABLE_WRITE_MAX_WAIT_MS, (error) =>
      this.logger.warn(`database unavailable, retrying a result write: ${(error as Error).message}`),
    );
  }
}

function now(): string {
  return new Date().toISOString();
}
