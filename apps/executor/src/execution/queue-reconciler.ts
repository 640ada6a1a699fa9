import { Inject, Injectable, Logger } from '@nestjs/common';
import { ExecutionsRepository, type ExecutionQueue } from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';

/**
 * Safety net for what BullMQ cannot see, every RECONCILE_INTERVAL_MS: QUEUED executions whose job
 * vanished (Redis restarted without persistence, the job failed after too many stalls) are enqueued
 * again; BullMQ deduplicates by job id and the runner decides from the database.
 */
@Injectable()
export class QueueReconciler {
  private readonly logger = new Logger(QueueReconciler.name);
  private timer: NodeJS.Timeout | null = null;
  private queue: ExecutionQueue | null = null;

  constructor(
    private readonly executions: ExecutionsRepository,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  start(queue: ExecutionQueue): void {
    this.queue = queue;
    this.timer = setInterval(() => void this.reconcile(), this.config.RECONCILE_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.queue = null;
  }

  private async reconcile(): Promise<void> {
    const queue = this.queue;
    if (!queue) return;
    try {
      const queued = await this.executions.findQueuedOlderThan(Math.max(5000, this.config.RETRY_MAX_MS + 5000));
      for (const execution of queued) {
        const was = await queue.enqueueIfGone(execution.id);
        if (was !== null) this.logger.warn(`re-enqueued ${execution.status} execution ${execution.id} (job was ${was})`);
      }
    } catch (error) {
      this.logger.warn(`reconcile failed: ${(error as Error).message}`);
    }
  }
}
