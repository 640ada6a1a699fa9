import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import {
  EXECUTION_JOB,
  EXECUTION_QUEUE,
  ExecutionsRepository,
  cancelChannel,
  executionJobOptions,
  recordFromSnapshot,
  takeoverJobOptions,
  type ExecutionJob,
} from '#executions/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { SandboxPool } from '#handler-sandbox/index.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import type { McpBridge } from '@skill-registry/sdk';
import { AttemptTakeover } from './attempt-takeover.js';
import { ExecutionRunner, RetryLater, TOOL_BRIDGE } from './execution-runner.js';
import { RunningAttempts } from './running-attempts.js';

/** After the grace period, how long a forced close of the BullMQ worker may take before shutdown goes on. */
const FORCED_CLOSE_WAIT_MS = 2000;

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}

/**
 * Hosts the BullMQ worker, the heartbeat of running executions, the cancellation listener and the
 * reconciler that makes sure no execution stays QUEUED or RUNNING forever.
 */
@Injectable()
export class ExecutionWorker implements OnApplicationShutdown {
  private readonly logger = new Logger(ExecutionWorker.name);
  private worker: Worker<ExecutionJob> | null = null;
  private queue: Queue<ExecutionJob> | null = null;
  private subscriber: Redis | null = null;
  private timers: NodeJS.Timeout[] = [];
  private stopping = false;
  /** Since when this process has reached the database without a failure (null: it is failing now). */
  private databaseReachableSince: number | null = null;

  constructor(
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
    private readonly runner: ExecutionRunner,
    private readonly running: RunningAttempts,
    private readonly takeover: AttemptTakeover,
    private readonly executions: ExecutionsRepository,
    private readonly sandbox: SandboxPool,
    @Inject(TOOL_BRIDGE) private readonly bridge: McpBridge,
    private readonly metrics: ExecutorMetrics,
  ) {}

  /** Starts consuming; called once the application is fully initialised. */
  async start(): Promise<void> {
    const connection = { url: this.config.REDIS_URL, maxRetriesPerRequest: null };
    this.queue = new Queue<ExecutionJob>(EXECUTION_QUEUE, {
      connection: new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: this.config.QUEUE_PREFIX,
    });
    this.metrics.observeQueue({
      jobCounts: () => (this.queue as Queue<ExecutionJob>).getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized'),
    });
    this.queue.on('error', (error) => this.logger.warn(`queue: ${error.message}`));
    // Handlers run only isolated: without bubblewrap (and without the operator's opt-out) they fail PRECONDITION_FAILED.
    const sandboxProblem = await this.sandbox.unavailableReason();
    if (sandboxProblem) this.logger.error(sandboxProblem);
    else if (this.config.HANDLER_SANDBOX === 'none')
      this.logger.warn(
        'SKILL HANDLERS RUN WITHOUT ISOLATION (HANDLER_SANDBOX=none, operator opt-out): they can read this machine and reach its network',
      );
    this.worker = new Worker<ExecutionJob>(EXECUTION_QUEUE, (job) => this.process(job), {
      connection: new Redis(connection.url, { maxRetriesPerRequest: null }),
      prefix: this.config.QUEUE_PREFIX,
      concurrency: this.config.EXECUTOR_CONCURRENCY,
      autorun: false,
      lockDuration: this.config.LOCK_DURATION_MS,
      stalledInterval: this.config.STALLED_INTERVAL_MS,
      maxStalledCount: 3,
      settings: { backoffStrategy: (_attempts, _type, error) => (error instanceof RetryLater ? error.delayMs : 1000) },
    });
    this.worker.on('error', (error) => this.logger.warn(`worker: ${error.message}`));
    this.worker.on('failed', (job, error) => {
      if (job && !(error instanceof RetryLater)) this.logger.warn(`job ${job.id} failed in BullMQ: ${error.message}`);
    });

    this.subscriber = new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel, executionId: string) => {
      if (this.running.cancel(executionId)) this.logger.log(`cancelling ${executionId}`);
    });
    await this.subscriber.subscribe(cancelChannel(this.config.QUEUE_PREFIX));

    // The database was reached moments ago (migrations at start): this process's own view needs no settling time.
    this.databaseReachableSince = Date.now() - this.config.LOST_AFTER_MS;
    this.timers.push(
      setInterval(() => void this.heartbeat().then(() => this.takeOverLost()), this.config.HEARTBEAT_MS),
      setInterval(() => void this.reconcile(), this.config.RECONCILE_INTERVAL_MS),
    );
    void this.worker.run();
    // A replacement for a crashed executor takes over its attempts at once, not a heartbeat later.
    void this.takeOverLost();
    this.logger.log(`consuming ${this.config.QUEUE_PREFIX}:${EXECUTION_QUEUE} with concurrency ${this.config.EXECUTOR_CONCURRENCY}`);
  }

  private async process(job: Job<ExecutionJob>): Promise<void> {
    const executionId = job.data?.executionId;
    if (typeof executionId !== 'string') throw new UnrecoverableError('job carries no executionId');
    // The row the registry enqueued with is good for the job's first delivery only (see ExecutionJob).
    const firstDelivery = job.attemptsMade === 0 && !job.stalledCounter;
    await this.runner.run(executionId, firstDelivery ? recordFromSnapshot(executionId, job.data.queued) : null);
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

  /**
   * Takes over attempts whose worker died: their heartbeat is older than LOST_AFTER_MS. Only once
   * this process has itself reached the database for that long (and the database server has been
   * up that long, see findStale): after a database outage every heartbeat is old, and live workers
   * get that time to renew theirs before anyone is declared lost.
   */
  async takeOverLost(): Promise<void> {
    const since = this.databaseReachableSince;
    if (!this.queue || this.stopping || since === null || Date.now() - since < this.config.LOST_AFTER_MS) return;
    try {
      for (const { execution, idempotent } of await this.executions.findStale(this.config.LOST_AFTER_MS)) {
        const decided = await this.takeover.takeOver(execution, idempotent);
        if (decided) this.logger.warn(`took over execution ${execution.id} (attempt ${execution.attempts}): ${decided}`);
        // The dead worker's job stays active in BullMQ until its lock lapses: the next attempt goes on a job of its own.
        if (decided === 'released') {
          await this.queue.add(EXECUTION_JOB, { executionId: execution.id }, takeoverJobOptions(execution.id, execution.attempts));
        }
      }
    } catch (error) {
      this.logger.warn(`takeover of lost executions failed: ${(error as Error).message}`);
    }
  }

  /**
   * Safety net for what BullMQ cannot see: QUEUED executions whose job vanished (Redis restarted
   * without persistence, job failed after too many stalls) are enqueued again; BullMQ deduplicates
   * by job id and the runner decides from the database.
   */
  async reconcile(): Promise<void> {
    if (!this.queue || this.stopping) return;
    try {
      const queued = await this.executions.findQueuedOlderThan(Math.max(5000, this.config.RETRY_MAX_MS + 5000));
      for (const execution of queued) {
        const job = await this.queue.getJob(execution.id);
        const state = job ? await job.getState() : 'missing';
        if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children')
          continue;
        if (job) await job.remove().catch(() => undefined);
        await this.queue.add(EXECUTION_JOB, { executionId: execution.id }, executionJobOptions(execution.id));
        this.logger.warn(`re-enqueued ${execution.status} execution ${execution.id} (job was ${state})`);
      }
    } catch (error) {
      this.logger.warn(`reconcile failed: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.worker) {
      // Stop taking jobs; let running ones finish within the grace period.
      const graceful = this.worker.close().then(() => 'closed' as const);
      if ((await Promise.race([graceful, delay(this.config.SHUTDOWN_GRACE_SECONDS * 1000, 'timeout' as const)])) === 'timeout') {
        this.logger.warn(`grace period over with ${this.running.ids().length} execution(s) running; stopping them`);
        // BullMQ's close() runs once (a second, forced call returns the first call's promise), and it
        // can wait forever on a job whose completion Redis never acknowledged. Do not wait on it: what
        // runs here now is abandoned, and its lapsed lock hands it to another executor (WORKER_LOST rules).
        await Promise.race([this.worker.close(true), delay(FORCED_CLOSE_WAIT_MS, 'timeout' as const)]);
      }
    }
    await this.sandbox.close();
    await (this.bridge as { close?: () => Promise<void> }).close?.().catch(() => undefined);
    await this.subscriber?.quit().catch(() => undefined);
    await this.queue?.close().catch(() => undefined);
  }
}
