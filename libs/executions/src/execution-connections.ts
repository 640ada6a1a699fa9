import { Redis, type RedisOptions } from 'ioredis';
import type pg from 'pg';
import { createPgPool } from '#database/pg-pool.js';
import { BatchedExecutionWrites, DEFAULT_EXECUTION_WRITE_BATCHING, type ExecutionWriteBatching } from './batched-execution-writes.js';
import { ExecutionEventLog } from './execution-events.js';
import { ExecutionsRepository } from './executions.repository.js';

/**
 * How a process's Redis commands behave while Redis is away. The registry fails fast (an execution
 * request answers 503 at once, catalog reads go on); the executor retries a few times and pipelines
 * (the events of executions that end together go out in one write).
 */
type ExecutionRedisBehaviour = Pick<RedisOptions, 'maxRetriesPerRequest' | 'enableOfflineQueue' | 'enableAutoPipelining'>;

export interface ExecutionConnectionSettings {
  databaseUrl: string;
  /** Connections of the Postgres pool. */
  poolSize: number;
  redisUrl: string;
  /** BullMQ and event-stream key prefix. */
  queuePrefix: string;
  /** Entries the platform's event stream keeps (EVENTS_HISTORY_MAX). */
  eventsHistory?: number;
  redis: ExecutionRedisBehaviour;
  /** Group commit of the execution writes (creates, attempt starts, finishes). */
  batching?: ExecutionWriteBatching;
  /** Told when an idle Postgres connection is lost (a restart); the pool connects again on the next query. */
  onPoolError?: (error: Error) => void;
  /** The process's own pool, when it has one (the registry's, shared by its stores): used, and left open on close. */
  pool?: pg.Pool;
}

/**
 * The connections a process needs to record and announce executions (one Postgres pool, one Redis
 * client) and what stands on them: the records, their group-committed writes and the event log.
 * Opened the same way by the registry and the executor, closed in one call.
 */
export class ExecutionConnections {
  private constructor(
    private readonly ownsPool: boolean,
    readonly pool: pg.Pool,
    readonly redis: Redis,
    readonly executions: ExecutionsRepository,
    readonly writes: BatchedExecutionWrites,
    readonly events: ExecutionEventLog,
  ) {}

  static open(settings: ExecutionConnectionSettings): ExecutionConnections {
    const pool = settings.pool ?? createPgPool(settings.databaseUrl, settings.poolSize, settings.onPoolError);
    // Connection errors are expected while Redis is away; the commands that fail report them where they are used.
    const redis = new Redis(settings.redisUrl, settings.redis);
    redis.on('error', () => undefined);
    const executions = new ExecutionsRepository(pool);
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
