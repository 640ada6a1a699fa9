import { Inject, Injectable } from '@nestjs/common';
import {
  type AttemptGuard,
  BatchedExecutionWrites,
  type ExecutionError,
  type ExecutionRecord,
  ExecutionsRepository,
} from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { ExecutorHooks } from '../hooks/executor-hooks.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import { ExecutionEventPublisher } from './execution-event-publisher.js';
import { RunningAttempts } from './running-attempts.js';

/**
 * Settles an attempt whose worker stopped sending heartbeats for LOST_AFTER_MS: a non-idempotent
 * execution (or one without attempts left) fails with WORKER_LOST, never running again; an
 * idempotent one is released for another attempt. Every write re-checks, in the database, that
 * the heartbeat is still stale, so a live worker whose heartbeat lands first keeps its attempt.
 * An attempt this process runs itself is never taken over here: its heartbeat is late because the
 * process is slow (a starved event loop, a busy pool), not dead.
 */
@Injectable()
export class AttemptTakeover {
  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly writes: BatchedExecutionWrites,
    private readonly events: ExecutionEventPublisher,
    private readonly metrics: ExecutorMetrics,
    private readonly running: RunningAttempts,
    private readonly hooks: ExecutorHooks,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  /** What was decided, or null when nothing was (the worker is alive, or someone else decided). */
  async takeOver(execution: ExecutionRecord, idempotent: boolean): Promise<'failed' | 'released' | null> {
    if (this.running.holds(execution.id, execution.attempts)) return null;
    const guard: AttemptGuard = { attempt: execution.attempts, staleForMs: this.config.LOST_AFTER_MS };
    const lost: ExecutionError = {
      code: 'WORKER_LOST',
      message: `The worker running attempt ${execution.attempts} stopped before it finished`,
      details: { attempt: execution.attempts },
    };
    const at = new Date().toISOString();
    this.events.track(execution);
    if (!idempotent || execution.attempts >= execution.maxAttempts) {
      // An end no hook runs for: the input is still kept as the redact hooks leave it.
      const input = await this.hooks.storedInputOf(execution);
      const failed = await this.writes.finish(execution.id, 'FAILED', { ...(input ? { input } : {}), error: lost }, guard);
      if (!failed) return null;
      this.metrics.takenOver(execution, 'failed');
      this.metrics.concluded(failed);
      await this.events.publish(execution.id, { type: 'failed', at, attempt: execution.attempts, error: lost });
      return 'failed';
    }
    if (!(await this.executions.releaseLostAttempt(execution.id, lost, guard))) return null;
    this.metrics.takenOver(execution, 'released');
    await this.events.publish(execution.id, { type: 'attempt_failed', at, attempt: execution.attempts, error: lost, next_delay_ms: 0 });
    return 'released';
  }
}
