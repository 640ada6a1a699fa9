import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit, type Provider } from '@nestjs/common';
import { databaseEndpointsOf, redisTopologyOf } from '#contracts/index.js';
import {
  duplicateRedis,
  ExecutionQueue,
  ExecutionsRepository,
  EXECUTION_FINISHED_CHANNEL,
  announcedExecutionId,
  decodeFinished,
  isTerminal,
  SharedStreamReads,
  type ExecutionRecord,
  type RedisConnection,
  type StreamReads,
} from '#executions/index.js';
import { ExecutionConnections, executionConnectionParts } from '#executions/execution-connections.js';
import { PgListener, type DatabasePool } from '#database/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE_LISTENER, DATABASE_POOL } from '../config/database-pool.js';
import { Gauge } from 'prom-client';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import { QueueUnavailable, TooManyStreams, TooManyStreamsForCaller } from '../problem/domain-errors.js';

export const EXECUTIONS_REDIS = Symbol('EXECUTIONS_REDIS');

/**
 * Connections of the executions feature. Redis commands fail fast when Redis is down (no offline
 * queue), so execution requests answer 503 at once while catalog reads keep working; ioredis
 * reconnects by itself when Redis returns. Creates of concurrent requests share one INSERT; each
 * request still waits for its own committed row.
 */
export const executionInfrastructure: Provider[] = [
  {
    provide: ExecutionConnections,
    useFactory: (config: AppConfig, pool: DatabasePool) => {
      const logger = new Logger('Database');
      return ExecutionConnections.open({
        pool,
        databaseUrl: config.DATABASE_URL,
        poolSize: config.DATABASE_POOL_SIZE,
        namedStatements: !databaseEndpointsOf(config).behindPooler,
        redisTopology: redisTopologyOf(config),
        queuePrefix: config.QUEUE_PREFIX,
        eventsHistory: config.EVENTS_HISTORY_MAX,
        redis: { maxRetriesPerRequest: 1, enableOfflineQueue: false },
        onPoolError: (error) => logger.warn(`executions connection lost: ${error.message}`),
      });
    },
    inject: [APP_CONFIG, DATABASE_POOL],
  },
  ...executionConnectionParts(),
  { provide: EXECUTIONS_REDIS, useFactory: (connections: ExecutionConnections) => connections.redis, inject: [ExecutionConnections] },
  // The queue on the feature's fail-fast connection: an enqueue while Redis is down fails at once (503).
  {
    provide: ExecutionQueue,
    useFactory: (redis: RedisConnection, config: AppConfig) => new ExecutionQueue(redis, config.QUEUE_PREFIX),
    inject: [EXECUTIONS_REDIS, APP_CONFIG],
  },
];

/**
 * The event streams' readers: at most EVENT_STREAMS_MAX followers at once in this process, whose blocking reads share
 * Redis connections, EVENT_STREAMS_PER_CONNECTION to one (SharedStreamReads; XREAD BLOCK holds its connection, and a
 * connection per follower took one of Redis's 10,000 clients, shared by every process of the platform, and two file
 * descriptors each). Past the bound a new stream is refused (TOO_MANY_STREAMS, 503). One caller follows at most
 * EVENT_STREAMS_PER_CALLER of them (TOO_MANY_STREAMS_FOR_CALLER, 429): a client that opened streams up to the bound left
 * none for the others.
 */
@Injectable()
export class StreamReaders implements OnApplicationShutdown {
  private open = 0;
  /** Streams open per caller (identity), for those with any. */
  private readonly byCaller = new Map<string, number>();
  private readonly shared: SharedStreamReads;
  private closed = false;

  constructor(
    @Inject(EXECUTIONS_REDIS) redis: RedisConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    metrics: RegistryMetrics,
  ) {
    this.shared = new SharedStreamReads({
      // Readers wait for Redis while it is away (the request connection fails fast instead).
      open: () => duplicateRedis(redis, { enableOfflineQueue: true, maxRetriesPerRequest: null }),
      followersPerConnection: config.EVENT_STREAMS_PER_CONNECTION,
      keyPrefix: config.QUEUE_PREFIX,
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [metrics.registry],
        collect() {
          this.set(read());
        },
      });
    gauge(
      'skill_registry_event_streams',
      'Event streams followed now (SSE, gRPC watches, MCP call progress); at most EVENT_STREAMS_MAX',
      () => this.count,
    );
    gauge(
      'skill_registry_event_stream_redis_connections',
      "Redis connections the event streams' reads hold now (EVENT_STREAMS_PER_CONNECTION followers share one)",
      () => this.connections,
    );
  }

  /** Readers open now. */
  get count(): number {
    return this.open;
  }

  /** Redis connections the readers hold now. */
  get connections(): number {
    return this.shared.connections;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.shared.close();
  }

  /**
   * One follower's reads, for `caller` (callerKey: a token's identity, an anonymous client's address); `release` ends
   * its waiting read and gives its place back. Throws TooManyStreamsForCaller past the caller's share, TooManyStreams
   * at the process's bound.
   */
  take(caller: string): { reads: StreamReads; release: () => void } {
    if (this.closed) throw new QueueUnavailable('the registry is shutting down', 'Events cannot be followed right now');
    const callerOpen = this.byCaller.get(caller) ?? 0;
    if (callerOpen >= this.config.EVENT_STREAMS_PER_CALLER) throw new TooManyStreamsForCaller(this.config.EVENT_STREAMS_PER_CALLER);
    if (this.open >= this.config.EVENT_STREAMS_MAX) throw new TooManyStreams(this.config.EVENT_STREAMS_MAX);
    this.open++;
    this.byCaller.set(caller, callerOpen + 1);
    const follower = this.shared.follower();
    let released = false;
    return {
      reads: follower.reads,
      release: () => {
        follower.release();
        if (released) return;
        released = true;
        this.open--;
        const left = (this.byCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.byCaller.set(caller, left);
        else this.byCaller.delete(caller);
      },
    };
  }
}

/** A registration for one execution's end; see ExecutionWaiters.listen. */
export interface FinishListener {
  /** Resolves when the execution is announced finished (with its final record when the announcement carries it), or null after `timeoutMs`. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<ExecutionRecord | null>;
  dispose(): void;
}

/**
 * Waits for executions to finish, woken by the announcements Postgres delivers when a terminal
 * state is committed (see EXECUTION_FINISHED_CHANNEL): no Redis needed, and no end goes unheard.
 */
@Injectable()
export class ExecutionWaiters implements OnModuleInit {
  private readonly logger = new Logger(ExecutionWaiters.name);
  private readonly waiters = new Map<string, Set<(finished: ExecutionRecord | null) => void>>();

  constructor(
    @Inject(DATABASE_LISTENER) private readonly listener: PgListener,
    private readonly executions: ExecutionsRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.listener.listen(
      EXECUTION_FINISHED_CHANNEL,
      (payload) => {
        // Every execution's end is announced here; only those someone in this process waits for are decoded.
        const id = announcedExecutionId(payload);
        if (id !== null && !this.waiters.has(id)) return;
        // Large records are announced by id alone (execution null): waiters then read the row, as after a timeout.
        const decoded = decodeFinished(payload);
        if (decoded) this.wake(decoded.id, decoded.execution);
      },
      () => void this.recheckAll(),
    );
  }

  /**
   * Starts listening for `executionId` at once (synchronously), so an announcement made after this
   * call is never missed; call it before the execution can possibly finish (before enqueueing).
   */
  listen(executionId: string): FinishListener {
    let wake!: (finished: ExecutionRecord | null) => void;
    const woken = new Promise<ExecutionRecord | null>((resolve) => (wake = resolve));
    const wakeEmpty = () => wake(null);
    const set = this.waiters.get(executionId) ?? new Set();
    set.add(wake);
    this.waiters.set(executionId, set);
    const dispose = () => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(executionId) === set) this.waiters.delete(executionId);
    };
    return {
      dispose,
      async wait(timeoutMs, signal) {
        const timer = setTimeout(wakeEmpty, timeoutMs);
        signal?.addEventListener('abort', wakeEmpty, { once: true });
        try {
          return await woken;
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener('abort', wakeEmpty);
          dispose();
        }
      },
    };
  }

  /** After the listener reconnected: announcements made meanwhile are lost, so ask the database. */
  private async recheckAll(): Promise<void> {
    this.logger.warn('reconnected to Postgres for finished executions; re-reading the awaited ones');
    for (const id of [...this.waiters.keys()]) {
      const execution = await this.executions.findById(id).catch(() => null);
      if (execution && isTerminal(execution.status)) this.wake(id, execution);
    }
  }

  private wake(executionId: string, finished: ExecutionRecord | null): void {
    for (const wake of this.waiters.get(executionId) ?? []) wake(finished);
  }
}

/** Closes the feature's queue and connections on shutdown. */
@Injectable()
export class ExecutionShutdown implements OnApplicationShutdown {
  constructor(
    private readonly connections: ExecutionConnections,
    private readonly queue: ExecutionQueue,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
    await this.connections.close();
  }
}
