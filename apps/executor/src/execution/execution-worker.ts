import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { McpBridge } from '@skill-registry/sdk';
import { redisTopologyOf } from '#contracts/index.js';
import { EXECUTION_QUEUE, ExecutionConsumer, ExecutionQueue } from '#executions/index.js';
import { HandlerSandboxPool } from '#handler-sandbox/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { ExecutorMetrics } from '../metrics/executor-metrics.js';
import { ExecutionRunner, TOOL_BRIDGE } from './execution-runner.js';
import { LostAttempts } from './lost-attempts.js';
import { QueueReconciler } from './queue-reconciler.js';
import { RunningAttempts } from './running-attempts.js';

/**
 * The executor's consuming side: the queue consumer hands each delivery to ExecutionRunner and each
 * announced cancellation to RunningAttempts; LostAttempts (heartbeat, takeover) and QueueReconciler run
 * beside it. Starts them once the application is up, and stops them in order on shutdown.
 */
@Injectable()
export class ExecutionWorker implements OnApplicationShutdown {
  private readonly logger = new Logger(ExecutionWorker.name);
  private consumer: ExecutionConsumer | null = null;
  private queue: ExecutionQueue | null = null;

  constructor(
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
    private readonly runner: ExecutionRunner,
    private readonly running: RunningAttempts,
    private readonly lost: LostAttempts,
    private readonly reconciler: QueueReconciler,
    private readonly sandbox: HandlerSandboxPool,
    @Inject(TOOL_BRIDGE) private readonly bridge: McpBridge,
    private readonly metrics: ExecutorMetrics,
  ) {}

  /** Starts consuming; called once the application is fully initialised. */
  async start(): Promise<void> {
    const queue = ExecutionQueue.connect(redisTopologyOf(this.config), this.config.QUEUE_PREFIX);
    this.queue = queue;
    this.metrics.observeQueue({ jobCounts: () => queue.jobCounts() });
    // Handlers run only isolated: without bubblewrap (and without the operator's opt-out) they fail PRECONDITION_FAILED.
    const sandboxProblem = await this.sandbox.unavailableReason();
    if (sandboxProblem) this.logger.error(sandboxProblem);
    else if (this.config.HANDLER_SANDBOX === 'none')
      this.logger.warn(
        'SKILL HANDLERS RUN WITHOUT ISOLATION (HANDLER_SANDBOX=none, operator opt-out): they can read this machine and reach its network',
      );
    this.consumer = await ExecutionConsumer.start({
      redis: redisTopologyOf(this.config),
      prefix: this.config.QUEUE_PREFIX,
      concurrency: this.config.EXECUTOR_CONCURRENCY,
      lockDurationMs: this.config.LOCK_DURATION_MS,
      stalledIntervalMs: this.config.STALLED_INTERVAL_MS,
      run: (executionId, queued, early) => this.runner.run(executionId, queued, early),
      onCancel: (executionId) => {
        if (this.running.cancel(executionId)) this.logger.log(`cancelling ${executionId}`);
      },
      onWarning: (message) => this.logger.warn(message),
    });
    this.lost.start(queue);
    this.reconciler.start(queue);
    this.logger.log(`consuming ${this.config.QUEUE_PREFIX}:${EXECUTION_QUEUE} with concurrency ${this.config.EXECUTOR_CONCURRENCY}`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.lost.stop();
    this.reconciler.stop();
    // Stop taking jobs; let running ones finish within the grace period.
    if (this.consumer) {
      const running = this.running.ids().length;
      if ((await this.consumer.close(this.config.SHUTDOWN_GRACE_SECONDS * 1000)) === 'timeout')
        this.logger.warn(`grace period over with ${running} execution(s) running then; they were stopped`);
    }
    await this.sandbox.close();
    await (this.bridge as { close?: () => Promise<void> }).close?.().catch(() => undefined);
    await this.queue?.close();
  }
}
