import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  EXECUTION_JOB,
  cancelChannel,
  executionJobOptions,
  queuedSnapshotOf,
  type ExecutionJob,
  type ExecutionRecord,
} from '#executions/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { EXECUTION_QUEUE_TOKEN, EXECUTIONS_REDIS } from './execution-infrastructure.js';

/**
 * The queue as the execution use-cases see it (the port): whether it can take work now, enqueue an
 * execution's job, drop a queued one, and tell every executor to abort a running one. BullMQ and
 * Redis Pub/Sub stay behind it.
 */
export abstract class ExecutionQueue {
  /** Null when the queue can take work now; else why not (the connection's state). */
  abstract unavailableReason(): string | null;
  /** Enqueues the execution's job; `record`, when given, is the QUEUED row just committed (copied into the job when small). */
  abstract enqueue(executionId: string, record?: ExecutionRecord): Promise<void>;
  /** Drops the job of an execution cancelled before it started (best effort: the row is the truth). */
  abstract remove(executionId: string): Promise<void>;
  abstract announceCancel(executionId: string): Promise<void>;
}

/** The queue on BullMQ, with cancellations on Redis Pub/Sub. */
@Injectable()
export class BullmqExecutionQueue extends ExecutionQueue {
  constructor(
    @Inject(EXECUTION_QUEUE_TOKEN) private readonly queue: Queue<ExecutionJob>,
    @Inject(EXECUTIONS_REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  unavailableReason(): string | null {
    return this.redis.status === 'ready' ? null : `connection ${this.redis.status}`;
  }

  async enqueue(executionId: string, record?: ExecutionRecord): Promise<void> {
    const queued = record ? queuedSnapshotOf(record) : undefined;
    await this.queue.add(EXECUTION_JOB, queued ? { executionId, queued } : { executionId }, executionJobOptions(executionId));
  }

  async remove(executionId: string): Promise<void> {
    await this.queue.remove(executionId).catch(() => undefined);
  }

  async announceCancel(executionId: string): Promise<void> {
    await this.redis.publish(cancelChannel(this.config.QUEUE_PREFIX), executionId);
  }
}
