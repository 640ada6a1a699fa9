import type { RedisTopology } from '#contracts/index.js';
import { createPgPool, type DatabasePool } from '#database/pg-pool.js';
import { BatchedExecutionWrites, DEFAULT_EXECUTION_WRITE_BATCHING, type ExecutionWriteBatching } from './batched-execution-writes.js';
import { ExecutionEventLog } from './execution-events.js';
import { ExecutionsRepository } from './executions.repository.js';
import { openRedis, type RedisBehaviour, type RedisConnection } from './redis-connection.js';

export interface ExecutionConnectionSettings {
  databaseUrl: string;
  /** Connections of the Postgres pool. */
  poolSize: number;
  /**
   * Whether the pool may use named prepared statements: not through a transaction pooler (PgBouncer
   * 1.18 in transaction mode hands each transaction any server connection, where the name is unknown).
   */
  namedStatements: boolean;
  redisTopology: RedisTopology;
  /** BullMQ and event-stream key prefix. */
  queuePrefix: string;
  /** Entries the platform's event stream keeps (EVENTS_HISTORY_MAX). */
  eventsHistory?: number;
  /**
   * How a process's Redis commands behave while Redis is away. The registry fails fast (an execution
   * request answers 503 at once, catalog reads go on); the executor retries a few times and pipelines
   * (the events of executions that end together go out in one write).
   */
  redis: RedisBehaviour;
  /** Group commit of the execution writes (creates, attempt starts, finishes). */
  batching?: ExecutionWriteBatching;
  /** Told when an idle Postgres connection is lost (a restart); the pool connects again on the next query. */
  onPoolError?: (error: Error) => void;
  /** Each statement's bound on the pool's connections (0: none; see pooledStatementTimeoutMs). */
  statementTimeoutMs?: number;
  /** The process's own pool, when it has one (the registry's, shared by its stores): used, and left open on close. */
  pool?: DatabasePool;
}

/**
 * The connections a process needs to record and announce executions (one Postgres pool, one Redis
 * client) and what stands on them: the records, their group-committed writes and the event log.
 * Opened the same way by the registry and the executor, closed in one call.
 */
export class ExecutionConnections {
  private constructor(
    private readonly ownsPool: boolean,
    readonly pool: DatabasePool,
    readonly redis: RedisConnection,
    readonly executions: ExecutionsRepository,
    readonly writes: BatchedExecutionWrites,
    readonly events: ExecutionEventLog,
  ) {}

  static open(settings: ExecutionConnectionSettings): ExecutionConnections {
    const pool = settings.pool ?? createPgPool(settings.databaseUrl, settings.poolSize, settings.onPoolError, settings.statementTimeoutMs);
    const redis = openRedis(settings.redisTopology, settings.redis);
    const executions = new ExecutionsRepository(pool, { namedStatements: settings.namedStatements });
    return new ExecutionConnections(
      settings.pool === undefined,
      pool,
      redis,
      executions,
      new BatchedExecutionWrites(executions, settings.batching ?? DEFAULT_EXECUTION_WRITE_BATCHING),
      new ExecutionEventLog(redis, settings.queuePrefix, settings.eventsHistory),
    );
  }

  /** Ends the connections it opened (after everything using them has stopped); a pool it was given stays open. */
  async close(): Promise<void> {
    this.redis.disconnect();
    if (this.ownsPool) await this.pool.end().catch(() => undefined);
  }
}

/** A dependency-injection token (a class, a symbol or a name). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- a class of any shape, as Nest's own InjectionToken
type ProviderToken = Function | symbol | string;

/**
 * Dependency-injection providers (plain `{ provide, useFactory, inject }` objects, as Nest takes them) of
 * what stands on the connections, taken from the ExecutionConnections provided under `connections`:
 * one list for the registry and the executor.
 */
export function executionConnectionParts(connections: ProviderToken = ExecutionConnections) {
  const part = (provide: ProviderToken, pick: (opened: ExecutionConnections) => unknown) => ({
    provide,
    useFactory: pick,
    inject: [connections],
  });
  return [
    part(ExecutionsRepository, (opened) => opened.executions),
    part(BatchedExecutionWrites, (opened) => opened.writes),
    part(ExecutionEventLog, (opened) => opened.events),
  ];
}
