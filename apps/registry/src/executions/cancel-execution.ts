import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { ExecutionEventLog, ExecutionsRepository, cancelChannel, type ExecutionRecord } from '../../../../libs/executions/src/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ExecutionFinished, ExecutionNotFound, QueueUnavailable } from '../problem/domain-errors.js';
import { EXECUTION_QUEUE_TOKEN, EXECUTIONS_REDIS } from './execution-infrastructure.js';
import { ExecuteSkill } from './execute-skill.js';

/**
 * Cancels a queued execution at once, or asks the executor running it to abort (the handler's
 * signal fires; a handler that ignores it is stopped after the executor's grace period).
 */
@Injectable()
export class CancelExecution {
  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly events: ExecutionEventLog,
    private readonly executeSkill: ExecuteSkill,
    @Inject(EXECUTION_QUEUE_TOKEN) private readonly queue: Queue,
    @Inject(EXECUTIONS_REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async cancel(id: string): Promise<ExecutionRecord> {
    const existing = await this.executions.findById(id);
    if (!existing) throw new ExecutionNotFound(id);
    const status = await this.executions.requestCancel(id);
    if (status === null) throw new ExecutionFinished(id, existing.status);
    const current = await this.executions.findById(id);
    if (current && current.status === 'QUEUED' && !current.attemptRunning) {
      const cancelled = await this.executions.finish(id, 'CANCELLED', {
        error: { code: 'CANCELLED', message: 'Execution cancelled before it started', details: {} },
      });
      if (cancelled) {
        await this.queue.remove(id).catch(() => undefined);
        await this.events
          .append(id, { type: 'cancelled', at: new Date().toISOString(), reason: 'cancelled before it started' })
          .catch(() => undefined);
        return cancelled;
      }
    }
    if (this.redis.status !== 'ready') throw new QueueUnavailable('cannot reach the executor to cancel a running execution');
    await this.redis.publish(cancelChannel(this.config.QUEUE_PREFIX), id);
    return this.executeSkill.waitIfAsked((await this.executions.findById(id)) as ExecutionRecord, 5);
  }
}
