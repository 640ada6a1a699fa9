import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisTopology } from '#contracts/index.js';
import { openRedis, type RedisConnection } from '../redis-connection.js';
import type { ExecutionRecord } from '../execution-model.js';
import { cancelChannel } from '../redis-keys.js';
import { EXECUTION_QUEUE, recordFromSnapshot, type ExecutionJob } from './execution-job.js';

/** Thrown by a job's handler when an attempt failed and another one is due after `delayMs` (BullMQ schedules it). */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`retry in ${delayMs} ms`);
    this.name = 'RetryLater';
  }
}

export interface ExecutionConsumerOptions {
  redis: RedisTopology;
  prefix: string;
  concurrency: number;
  /** BullMQ's job lock: a worker that dies loses its jobs after this long. */
  lockDurationMs: number;
  stalledIntervalMs: number;
  /**
   * One delivery of an execution's job. `queued` is the QUEUED row the registry enqueued with, on the
   * job's first delivery only (see ExecutionJob); `early`: the job may have come before the row (ExecutionJob.early).
   * Throw RetryLater to have another delivery later.
   */
  run: (executionId: string, queued: ExecutionRecord | null, early: boolean) => Promise<void>;
  /** A cancellation announced for an execution (it may run in this process or elsewhere). */
  onCancel: (executionId: string) => void;
  onWarning: (message: string) => void;
}

/** After a forced close, how long BullMQ's close may take before shutdown goes on without it. */
const FORCED_CLOSE_WAIT_MS = 2000;

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}

/**
 * The executor's side of the execution queue: the one place with BullMQ's Worker and the cancellation
 * subscriber. It hands each delivery to `run` (the executor's use-case) and knows nothing of what runs.
 */
export class ExecutionConsumer {
  private constructor(
    private readonly worker: Worker<ExecutionJob>,
    private readonly subscriber: RedisConnection,
  ) {}

  static async start(options: ExecutionConsumerOptions): Promise<ExecutionConsumer> {
    const worker = new Worker<ExecutionJob>(EXECUTION_QUEUE, (job) => deliver(job, options), {
      connection: openRedis(options.redis, { maxRetriesPerRequest: null }),
      prefix: options.prefix,
      concurrency: options.concurrency,
      autorun: false,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      maxStalledCount: 3,
      settings: { backoffStrategy: (_attempts, _type, error) => (error instanceof RetryLater ? error.delayMs : 1000) },
    });
    worker.on('error', (error) => options.onWarning(`worker: ${error.message}`));
    worker.on('failed', (job, error) => {
      if (job && !(error instanceof RetryLater)) options.onWarning(`job ${job.id} failed in BullMQ: ${error.message}`);
    });
    // Classic pub/sub: on a cluster any node carries the channel's messages (ioredis subscribes again on another node when one fails).
    const subscriber = openRedis(options.redis, { maxRetriesPerRequest: null });
    subscriber.on('message', (_channel, executionId: string) => options.onCancel(executionId));
    await subscriber.subscribe(cancelChannel(options.prefix));
    void worker.run();
    return new ExecutionConsumer(worker, subscriber);
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running ones; then closes by force without waiting
   * on BullMQ any longer (its close can wait forever on a completion Redis never acknowledged): what runs
   * then is abandoned, and its lapsed lock hands it to another executor. Returns whether the grace ran out.
   */
  async close(graceMs: number): Promise<'closed' | 'timeout'> {
    const graceful = this.worker.close().then(() => 'closed' as const);
    const ended = await Promise.race([graceful, delay(graceMs, 'timeout' as const)]);
    if (ended === 'timeout') await Promise.race([this.worker.close(true), delay(FORCED_CLOSE_WAIT_MS, 'timeout' as const)]);
    await this.subscriber.quit().catch(() => undefined);
    return ended;
  }
}

async function deliver(job: Job<ExecutionJob>, options: ExecutionConsumerOptions): Promise<void> {
  const executionId = job.data?.executionId;
  if (typeof executionId !== 'string') throw new UnrecoverableError('job carries no executionId');
  // The row the registry enqueued with is good for the job's first delivery only (see ExecutionJob).
  const firstDelivery = job.attemptsMade === 0 && !job.stalledCounter;
  await options.run(executionId, firstDelivery ? recordFromSnapshot(executionId, job.data.queued) : null, job.data.early === true);
}
