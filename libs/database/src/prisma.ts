import { PrismaPg } from '@prisma/adapter-pg';
import type pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';

export { PrismaClient };
export { Prisma } from './generated/prisma/client.js';

/**
 * A Prisma client on the pg driver adapter (no native query engine needed), over the process's pool
 * (createPgPool: connecting gives up after CONNECT_TIMEOUT_MS, so an outage answers quickly). Connection
 * errors go to `onError` (the adapter keeps the process alive). `$disconnect()` ends the pool.
 */
export function createPrismaClient(pool: pg.Pool, onError: (error: Error) => void = () => undefined): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool, { onPoolError: onError, onConnectionError: onError }) });
}
