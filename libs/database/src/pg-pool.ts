import pg from 'pg';

/**
 * How long a request waits for a Postgres connection before it is told the database is
 * unavailable. Short, so that during an outage every caller gets a 503 within a bounded time
 * instead of queueing behind a pool that cannot connect.
 */
const CONNECT_TIMEOUT_MS = 1500;

/** Options every pg pool and client of the project uses. */
export function connectionOptions(databaseUrl: string): pg.ClientConfig {
  return { connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true };
}

/**
 * A pg pool that survives the database going away: an idle client's error (a Postgres restart
 * ends every connection with 57P01) is reported to `onError` instead of crashing the process, and
 * the pool connects again on the next query.
 */
export function createPgPool(databaseUrl: string, max: number, onError: (error: Error) => void = () => undefined): pg.Pool {
  const pool = new pg.Pool({ ...connectionOptions(databaseUrl), max });
  pool.on('error', onError);
  return pool;
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
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const candidate = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; meta?: unknown };
  if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
  if (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.test(candidate.message)) return true;
  if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  const meta = candidate.meta as { driverAdapterError?: unknown } | undefined;
  return isDatabaseUnavailable(candidate.cause, depth + 1) || isDatabaseUnavailable(meta?.driverAdapterError, depth + 1);
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
