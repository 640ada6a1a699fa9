import pg from 'pg';

/**
 * How long a request waits for a Postgres connection before it is told the database is
 * unavailable. Short, so that during an outage every caller gets a 503 within a bounded time
 * instead of queueing behind a pool that cannot connect.
 */
const CONNECT_TIMEOUT_MS = 1500;

/**
 * Options every pg pool and client of the project uses; `statementTimeoutMs` (> 0) is sent as the session's
 * statement_timeout when it opens (see pooledStatementTimeoutMs).
 */
export function connectionOptions(databaseUrl: string, statementTimeoutMs = 0): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
  };
}

/** What pg-pool rejects a request with when it waited CONNECT_TIMEOUT_MS in its queue for a connection. */
const QUEUE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * A request that waited CONNECT_TIMEOUT_MS for a connection while every connection of its pool was connected and in
 * use: the database is there, the pool is too small for the load (or something holds its connections). pg-pool
 * rejects such a wait with the same error as a wait behind connections that cannot reach the server; DatabasePool
 * tells the two apart. Still "unavailable" (503, retried by retryWhileUnavailable): the request may succeed shortly.
 */
export class PoolExhausted extends Error {
  readonly code = 'POOL_EXHAUSTED';

  constructor(
    readonly poolSize: number,
    readonly waitedMs: number,
    options?: ErrorOptions,
  ) {
    super(`all ${poolSize} database connections of this process stayed in use for ${waitedMs} ms`, options);
    this.name = 'PoolExhausted';
  }
}

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (release?: unknown) => void) => void;

/**
 * A pg pool that survives the database going away (see createPgPool), says when a wait for a connection timed out
 * because all of them were busy (PoolExhausted), and counts such waits (exhaustedWaits) and its connected clients
 * (from the pool's own 'connect' and 'remove' events) for the metrics.
 */
export class DatabasePool extends pg.Pool {
  private connectedClients = 0;
  private exhausted = 0;

  constructor(
    databaseUrl: string,
    readonly size: number,
    statementTimeoutMs = 0,
  ) {
    super({ ...connectionOptions(databaseUrl, statementTimeoutMs), max: size });
    this.on('connect', () => this.connectedClients++);
    this.on('remove', () => this.connectedClients--);
  }

  /** Requests refused since the start because every connection stayed in use (PoolExhausted). */
  get exhaustedWaits(): number {
    return this.exhausted;
  }

  /** Clients connected now (in use or idle), not counting those still connecting. */
  get connectedCount(): number {
    return this.connectedClients;
  }

  // pg-pool's own query() checks its client out through this.connect, so both ways of using the pool pass here.
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    if (callback) return super.connect((error, client, release) => callback(error && this.exhaustion(error), client, release));
    return super.connect().catch((error: unknown) => {
      throw error instanceof Error ? this.exhaustion(error) : error;
    });
  }

  /** A queue wait that timed out while every connection was connected (so busy: an idle one would have been handed out). */
  private exhaustion(error: Error): Error {
    if (error.message !== QUEUE_TIMEOUT_MESSAGE || this.connectedClients < this.size) return error;
    this.exhausted++;
    return new PoolExhausted(this.size, CONNECT_TIMEOUT_MS, { cause: error });
  }
}

/**
 * A pg pool that survives the database going away: an idle client's error (a Postgres restart
 * ends every connection with 57P01) is reported to `onError` instead of crashing the process, and
 * the pool connects again on the next query. `statementTimeoutMs` (> 0): each statement's bound (connectionOptions).
 */
export function createPgPool(
  databaseUrl: string,
  max: number,
  onError: (error: Error) => void = () => undefined,
  statementTimeoutMs = 0,
): DatabasePool {
  const pool = new DatabasePool(databaseUrl, max, statementTimeoutMs);
  pool.on('error', onError);
  return pool;
}

/**
 * Whether `error` is or wraps a PoolExhausted: from pg directly, or through Prisma, whose error keeps the code (and the
 * message) of the driver's, not the error itself.
 */
export function isPoolExhausted(error: unknown): boolean {
  return hasCode(error, 'POOL_EXHAUSTED');
}

/** SQLSTATE query_canceled: a statement over its statement_timeout (or one an operator cancelled). */
const QUERY_CANCELED = '57014';

/** Whether `error` is or wraps a statement Postgres cancelled (statement_timeout), from pg or through Prisma. */
export function isStatementCancelled(error: unknown): boolean {
  return hasCode(error, QUERY_CANCELED);
}

function hasCode(error: unknown, code: string): boolean {
  return someInChain(error, (candidate) => candidate.code === code);
}

/**
 * Whether `error` or an error it wraps meets `test`: its `cause`, an AggregateError's `errors`, the driver's error
 * Prisma keeps under `meta.driverAdapterError` (pg, the Prisma driver adapter and Prisma each wrap the one before).
 */
function someInChain(error: unknown, test: (candidate: { code?: unknown; message?: unknown }) => boolean, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const candidate = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
    meta?: { driverAdapterError?: unknown };
  };
  if (test(candidate)) return true;
  if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => someInChain(inner, test, depth + 1))) return true;
  return someInChain(candidate.cause, test, depth + 1) || someInChain(candidate.meta?.driverAdapterError, test, depth + 1);
}

/** SQLSTATEs and socket errors that mean "the database cannot be reached now", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down, in recovery)
  '53300', // too_many_connections
  'POOL_EXHAUSTED', // PoolExhausted: every connection of the pool stayed busy
  QUERY_CANCELED, // a statement over statement_timeout (stuck behind a lock, say): another try may go through
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  // Prisma's codes for the same situations.
  'P1001',
  'P1002',
  'P1017',
  'P2024',
]);

const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection (is )?(closed|ended)|Can't reach database server|database system is (starting up|shutting down|in recovery)|terminating connection due to administrator command|Cannot use a pool after calling end|ECONNREFUSED/i;

/**
 * True when `error` (or an error it wraps: pg, the Prisma driver adapter, Prisma itself) says the
 * database is unreachable. Callers answer 503 for these and 500 for anything else.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someInChain(
    error,
    (candidate) =>
      (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) ||
      (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.test(candidate.message)),
  );
}

/**
 * Runs `write` until it succeeds, retrying with backoff while the database is unavailable (for up
 * to `maxWaitMs`); any other error, or an outage longer than that, is thrown. For writes that must
 * not be lost, such as the result of work already done.
 */
export async function retryWhileUnavailable<T>(write: () => Promise<T>, maxWaitMs: number, onRetry?: (error: unknown) => void): Promise<T> {
  const deadline = Date.now() + maxWaitMs;
  for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 2000)) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + delayMs > deadline) throw error;
      onRetry?.(error);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
