import { type DynamicModule, Logger, Module, type Provider, type Type } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type pg from 'pg';
import { databaseEndpointsOf, pooledStatementTimeoutMs, redisTopologyOf } from '#contracts/index.js';
import { ExecutionConnections, executionConnectionParts } from '#executions/execution-connections.js';
import { PackageCache, PackageStore } from '#package-store/index.js';
import { ScriptSandbox } from '#script-sandbox/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from './config/executor-config.js';
import { AttemptTakeover } from './execution/attempt-takeover.js';
import { ExecutionEventPublisher } from './execution/execution-event-publisher.js';
import { AttemptConclusion } from './execution/attempt-conclusion.js';
import { ExecutionRunner, TOOL_BRIDGE } from './execution/execution-runner.js';
import { HandlerAttempt } from './execution/handler-attempt.js';
import { LostAttempts } from './execution/lost-attempts.js';
import { QueueReconciler } from './execution/queue-reconciler.js';
import { RunningAttempts } from './execution/running-attempts.js';
import { ExecutionWorker } from './execution/execution-worker.js';
import { ExecutorMetrics } from './metrics/executor-metrics.js';
import { ExecutorMetricsController } from './metrics/metrics.controller.js';
import { createToolBridge } from './execution/tool-bridge.js';
import { EXECUTION_HOOKS, type ExecutionHook } from './hooks/execution-hook.js';
import { ExecutorHooks, HOOK_EVENTS, HOOK_PORTS } from './hooks/executor-hooks.js';
import { RedisRateCounter, WebhookSender } from '#hooks/index.js';
import { PlatformEventLog } from '#executions/index.js';
import { ExecutorHealthController } from './health/executor-health.controller.js';
import { InfrastructureReadiness } from './health/infrastructure-readiness.js';
import { HandlerLauncher, HandlerSandboxPool, handlerProcessLimits, sandboxPoolOptions } from '#handler-sandbox/index.js';
import { createPackageCacheRoot } from './scripts/package-cache-root.js';
import { ScriptToolRunner } from './scripts/script-tool-runner.js';
import { WorkflowRunner } from './scripts/workflow-runner.js';
import { TwinStore, twinLimitsOf } from '#twin/index.js';
import { TwinGateway } from './twin/twin-gateway.js';

const PG_POOL = Symbol('PG_POOL');
const EVENTS_REDIS = Symbol('EVENTS_REDIS');

export interface ExecutorModuleOptions {
  config: ExecutorConfig;
  /** Code hooks (Nest providers implementing ExecutionHook), run with HOOKS_FILE's in one order by priority. */
  hooks?: Type<ExecutionHook>[];
}

@Module({})
export class ExecutorModule {
  static forRoot({ config, hooks = [] }: ExecutorModuleOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: EXECUTOR_CONFIG, useValue: config },
      {
        provide: ExecutionConnections,
        useFactory: () => {
          const logger = new Logger('Database');
          return ExecutionConnections.open({
            databaseUrl: config.DATABASE_URL,
            // Attempt starts and finishes are group-committed, so connections need not grow with concurrency.
            poolSize: Math.min(16, Math.max(4, config.EXECUTOR_CONCURRENCY + 2)),
            namedStatements: !databaseEndpointsOf(config).behindPooler,
            statementTimeoutMs: pooledStatementTimeoutMs(config),
            redisTopology: redisTopologyOf(config),
            queuePrefix: config.QUEUE_PREFIX,
            eventsHistory: config.EVENTS_HISTORY_MAX,
            // Publishing failures are logged where they happen (ExecutionRunner). Auto-pipelining: the
            // events of the executions that end together (one finish flush) go out in one write.
            redis: { maxRetriesPerRequest: 3, enableAutoPipelining: true },
            batching: { maxBatch: config.WRITE_BATCH_MAX, windowMs: config.WRITE_BATCH_WINDOW_MS },
            onPoolError: (error) => logger.warn(`connection lost: ${error.message}`),
          });
        },
      },
      { provide: PG_POOL, useFactory: (connections: ExecutionConnections) => connections.pool, inject: [ExecutionConnections] },
      { provide: EVENTS_REDIS, useFactory: (connections: ExecutionConnections) => connections.redis, inject: [ExecutionConnections] },
      ...executionConnectionParts(),
      { provide: TwinStore, useFactory: (pool: pg.Pool) => new TwinStore(pool, twinLimitsOf(config)), inject: [PG_POOL] },
      TwinGateway,
      {
        provide: PackageCache,
        useFactory: async (pool: pg.Pool) => {
          // Script tools run as another user, who must reach the packages (see createPackageCacheRoot).
          await createPackageCacheRoot(config.PACKAGE_CACHE_DIR);
          const cache = new PackageCache(config.PACKAGE_CACHE_DIR, new PackageStore(pool), config.PACKAGE_CACHE_MAX_MB * 1024 * 1024);
          await cache.sweepTemporary();
          return cache;
        },
        inject: [PG_POOL],
      },
      {
        provide: HandlerSandboxPool,
        useFactory: () =>
          new HandlerSandboxPool(
            new HandlerLauncher({
              isolation: config.HANDLER_SANDBOX,
              maxFrameBytes: config.SANDBOX_MAX_MESSAGE_MB * 1024 * 1024,
              limits: handlerProcessLimits(config),
              testWritableDir: config.SANDBOX_TEST_WRITABLE_DIR,
            }),
            sandboxPoolOptions(config),
          ),
      },
      // One sandbox for every script tool run; ScriptToolRunner checks at start whether it can run here.
      { provide: ScriptSandbox, useFactory: () => new ScriptSandbox({ isolation: config.SCRIPT_SANDBOX }) },
      ScriptToolRunner,
      WorkflowRunner,
      { provide: TOOL_BRIDGE, useFactory: () => createToolBridge(config) },
      ...hooks,
      { provide: EXECUTION_HOOKS, useFactory: (...instances: ExecutionHook[]) => instances, inject: hooks },
      {
        provide: HOOK_PORTS,
        useFactory: (connections: ExecutionConnections) => ({
          rateCounter: new RedisRateCounter(connections.redis, config.QUEUE_PREFIX),
          webhooks: new WebhookSender(),
        }),
        inject: [ExecutionConnections],
      },
      {
        provide: PlatformEventLog,
        useFactory: (connections: ExecutionConnections) =>
          new PlatformEventLog(connections.redis, config.QUEUE_PREFIX, config.EVENTS_HISTORY_MAX),
        inject: [ExecutionConnections],
      },
      { provide: HOOK_EVENTS, useExisting: ExecutionEventPublisher },
      ExecutorHooks,
      ExecutionEventPublisher,
      RunningAttempts,
      AttemptTakeover,
      HandlerAttempt,
      AttemptConclusion,
      ExecutionRunner,
      LostAttempts,
      QueueReconciler,
      ExecutionWorker,
      ExecutorMetrics,
      {
        provide: 'EXECUTOR_RESOURCES',
        useFactory: (connections: ExecutionConnections) => ({ onApplicationShutdown: () => connections.close() }),
        inject: [ExecutionConnections],
      },
    ];
    return {
      module: ExecutorModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { level: config.LOG_LEVEL, autoLogging: false } })],
      controllers: [ExecutorHealthController, ExecutorMetricsController],
      providers: [
        ...providers,
        { provide: 'PG_POOL_HEALTH', useExisting: PG_POOL },
        { provide: 'EVENTS_REDIS_HEALTH', useExisting: EVENTS_REDIS },
        InfrastructureReadiness,
      ],
    };
  }
}
