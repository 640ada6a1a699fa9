import { Inject, Injectable, Logger } from '@nestjs/common';
import { ExecutionsRepository, type ExecutionQueue } from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { AttemptTakeover } from './attempt-takeover.js';
import { RunningAttempts } from './running-attempts.js';

/**
 * Every HEARTBEAT_MS: renews the heartbeat of this process's attempts (stopping those another worker
 * took over), then takes over the attempts whose worker died — their heartbeat is older than
 * LOST_AFTER_MS. Takeovers happen only once this process has itself reached the database for that
 * long (and the database server has been up that long, see findStale): after a database outage every
 * heartbeat is old, and live workers get that time to renew theirs before anyone is declared lost.
 */
@Injectable()
export class LostAttempts {
  private readonly logger = new Logger(LostAttempts.name);
  /** Since when this process has reached the database without a failure (null: it is failing now). */
  private databaseReachableSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private queue: ExecutionQueue | null = null;

  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly running: RunningAttempts,
    private readonly takeover: AttemptTakeover,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  /** Starts the heartbeat; a replacement for a crashed executor takes over its attempts at once, not a heartbeat later. */
  start(queue: ExecutionQueue): void {
    this.queue = queue;
    // The database was reached moments ago (migrations at start): this process's own view needs no settling time.
    this.databaseReachableSince = Date.now() - this.config.LOST_AFTER_MS;
    this.timer = setInterval(() => void this.heartbeat().then(() => this.takeOverLost()), this.config.HEARTBEAT_MS);
    void this.takeOverLost();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.queue = null;
  }

  /** Renews the heartbeat of this process's attempts; stops those another worker has taken over. */
  private async heartbeat(): Promise<void> {
    try {
      this.running.abandon(await this.executions.heartbeat(this.running.heartbeated()));
      this.databaseReachableSince ??= Date.now();
    } catch (error) {
      this.databaseReachableSince = null;
      this.logger.warn(`heartbeat failed: ${(error as Error).message}`);
    }
  }

  private async takeOverLost(): Promise<void> {
    const since = this.databaseReachableSince;
    const queue = this.queue;
    if (!queue || since === null || Date.now() - since < this.config.LOST_AFTER_MS) return;
    try {
      for (const { execution, idempotent } of await this.executions.findStale(this.config.LOST_AFTER_MS)) {
        const decided = await this.takeover.takeOver(execution, idempotent);
        if (decided) this.logger.warn(`took over execution ${execution.id} (attempt ${execution.attempts}): ${decided}`);
        // The dead worker's job stays active in BullMQ until its lock lapses: the next attempt goes on a job of its own.
        if (decided === 'released') await queue.enqueueTakeover(execution.id, execution.attempts);
      }
    } catch (error) {
      this.logger.warn(`takeover of lost executions failed: ${(error as Error).message}`);
    }
  }
}
