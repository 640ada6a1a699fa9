import { Queue } from 'bullmq';
import type { RedisTopology } from '#contracts/index.js';
import type { ExecutionRecord } from '../execution-model.js';
import { openRedis, type RedisBehaviour, type RedisConnection } from '../redis-connection.js';
import { cancelChannel } from '../redis-keys.js';
import {
  EXECUTION_JOB,
  EXECUTION_QUEUE,
  executionJobOptions,
  queuedSnapshotOf,
  takeoverJobOptions,
  type ExecutionJob,
} from './execution-job.js';

/** Job states in which an execution's job will still be delivered (nothing to re-enqueue). */
const PENDING_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/**
 * The execution queue as its producers see it (registry and executor): enqueue an execution's job, drop
 * a queued one, re-enqueue one whose job vanished, tell every executor to abort a running one. The one
 * place with BullMQ's Queue (and, with ExecutionConsumer, its Worker); cancellations go on Redis Pub/Sub.
 */
export class ExecutionQueue {
  private readonly queue: Queue<ExecutionJob>;

  /** On a connection of the caller's (its failure policy is the caller's: fail fast, or wait). */
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix: string,
    private readonly ownsConnection = false,
  ) {
    this.queue = new Queue<ExecutionJob>(EXECUTION_QUEUE, { connection: redis, prefix });
    // Connection errors surface in the calls (and in unavailableReason), not as unhandled events.
    this.queue.on('error', () => undefined);
  }

  /** On a connection of its own, which waits for Redis instead of failing (the executor's choice). */
  static connect(topology: RedisTopology, prefix: string, behaviour: RedisBehaviour = { maxRetriesPerRequest: null }): ExecutionQueue {
    return new ExecutionQueue(openRedis(topology, behaviour), prefix, true);
  }

  /** Null when the queue can take work now; else why not (the connection's state). */
  unavailableReason(): string | null {
    return this.redis.status === 'ready' ? null : `connection ${this.redis.status}`;
  }

  /**
   * Enqueues the execution's job; `record`, when given, is its QUEUED row (copied into the job when small): just
   * committed, or with `early`, being inserted meanwhile (see ExecutionJob.early).
   */
  async enqueue(executionId: string, record?: ExecutionRecord, early = false): Promise<void> {
    const queued = record ? queuedSnapshotOf(record) : undefined;
    const job: ExecutionJob = { executionId, ...(queued ? { queued } : {}), ...(early ? { early: true as const } : {}) };
    await this.queue.add(EXECUTION_JOB, job, executionJobOptions(executionId));
  }

  /** The job of the next attempt of an execution taken over from a dead worker (its own job is still active). */
  async enqueueTakeover(executionId: string, lostAttempt: number): Promise<void> {
    await this.queue.add(EXECUTION_JOB, { executionId }, takeoverJobOptions(executionId, lostAttempt));
  }

  /**
   * Enqueues the execution again if its job is gone or ended (Redis restarted without persistence, the job
   * failed after too many stalls); returns the state the job was in then, or null when it is still pending.
   */
  async enqueueIfGone(executionId: string): Promise<string | null> {
    const job = await this.queue.getJob(executionId);
    const state = job ? await job.getState() : 'missing';
    if (PENDING_STATES.has(state)) return null;
    if (job) await job.remove().catch(() => undefined);
    await this.enqueue(executionId);
    return state;
  }

  /** Drops the job of an execution cancelled before it started (best effort: the row is the truth). */
  async remove(executionId: string): Promise<void> {
    await this.queue.remove(executionId).catch(() => undefined);
  }

  async announceCancel(executionId: string): Promise<void> {
    await this.redis.publish(cancelChannel(this.prefix), executionId);
  }

  jobCounts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    if (this.ownsConnection) await this.redis.quit().catch(() => undefined);
  }
}
