import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
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
    const worker = new LoneJobWorker(EXECUTION_QUEUE, (job) => deliver(job, options), {
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

/** How long, at most, the worker's next fetch waits for the delivery of a job it took from an empty queue (LoneJobWorker). */
const LONE_JOB_HOLD_MS = 2;

/**
 * BullMQ's Worker, for the job that comes to an idle worker: the one a lone synchronous call waits on. BullMQ's loop,
 * after any job it takes, fetches again before it hands that job to its processor; and every job it takes marks the
 * queue (so that other workers look for more), so its next wait for jobs returns at once and it fetches once more. For
 * a job taken from an empty queue both fetches find nothing, and they ran in this process and in Redis while the job's
 * start, handler and finish did, on the same cores. Here, when a worker with no delivery under way takes a job from an
 * empty queue, the fetch right after it is answered "empty" without asking Redis (the queue was empty a moment ago, and
 * the mark wakes this or another worker for any job added since), and the fetch after that waits until the job's
 * delivery has ended, for at most LONE_JOB_HOLD_MS (so a job added meanwhile starts at most that much later). A worker
 * with deliveries under way, or a queue that was not found empty, is left as BullMQ runs it.
 *
 * Side by side with BullMQ's own Worker (`bench/executor/ab.mjs`, 2-core machine): `?wait` p50 for one client 0.936×;
 * throughput at concurrency 8 / 32 / 128 1.014 / 1.006 / 1.003×. Holding at every job taken from an empty queue, busy
 * or not, cost 5% at concurrency 32 (under load the queue empties for moments); starting each job's delivery at its
 * fetch (before BullMQ's next fetch) cost 12–17% at 32 and 128.
 */
export class LoneJobWorker extends Worker<ExecutionJob> {
  /** The last fetch found the queue empty. */
  private foundEmpty = false;
  /** A job was just taken from an empty queue: the fetch right after it (in the same turn) is answered "empty" at once. */
  private skipNext = false;
  /** That job, until its processor call; then its delivery, which the next fetch that asks Redis waits for. */
  private loneJob: Job<ExecutionJob> | null = null;
  private loneDelivery: Promise<void> | null = null;
  /** Deliveries under way. */
  private deliveries = 0;

  constructor(
    name: string,
    delivery: (job: Job<ExecutionJob>) => Promise<void>,
    options: WorkerOptions,
    /** Longest that fetch waits (0: neither change). */
    private readonly holdMs: number = LONE_JOB_HOLD_MS,
  ) {
    super(
      name,
      (job: Job<ExecutionJob>) => {
        this.deliveries++;
        const delivered = delivery(job).finally(() => this.deliveries--);
        if (job === this.loneJob) {
          this.loneJob = null;
          this.loneDelivery = delivered;
        }
        return delivered;
      },
      options,
    );
  }

  protected override async moveToActive(token: string, name?: string): Promise<Job<ExecutionJob>> {
    if (this.skipNext) {
      this.skipNext = false;
      // As BullMQ takes an empty answer from Redis: the queue is drained, and the next fetch waits for the mark.
      return this.nextJobFromJobData(undefined, undefined, token);
    }
    const held = this.loneDelivery;
    if (held) {
      this.loneDelivery = null;
      await settledWithin(held, this.holdMs);
    }
    const job = await super.moveToActive(token, name);
    if (!job) this.foundEmpty = true;
    else if (this.foundEmpty) {
      this.foundEmpty = false;
      // Only on a worker with nothing else under way: under load (even a queue that empties at times) nothing waits.
      if (this.holdMs > 0 && this.deliveries === 0) {
        // Only the fetch BullMQ's loop makes right away, in this turn of the event loop: a later one may come after a
        // wait for jobs that consumed the mark, and answered "empty" then, a job added before it would wait for the next.
        this.skipNext = true;
        setImmediate(() => (this.skipNext = false));
        this.loneJob = job;
      }
    }
    return job;
  }
}

/** Resolves when `work` settles or after `ms`, whichever comes first. */
function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    work.then(done, done);
  });
}

async function deliver(job: Job<ExecutionJob>, options: ExecutionConsumerOptions): Promise<void> {
  const executionId = job.data?.executionId;
  if (typeof executionId !== 'string') throw new UnrecoverableError('job carries no executionId');
  // The row the registry enqueued with is good for the job's first delivery only (see ExecutionJob).
  const firstDelivery = job.attemptsMade === 0 && !job.stalledCounter;
  await options.run(executionId, firstDelivery ? recordFromSnapshot(executionId, job.data.queued) : null, job.data.early === true);
}
