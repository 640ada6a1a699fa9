import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';
import { connectionOptions } from './pg-pool.js';

export { PrismaClient };
export { Prisma } from './generated/prisma/client.js';
export type { SkillVersion } from './generated/prisma/client.js';

/**
 * A Prisma client on the pg driver adapter (no native query engine needed). Connection errors of
 * idle clients go to `onError` (the adapter keeps the process alive); connecting gives up after
 * CONNECT_TIMEOUT_MS, so an outage answers quickly.
 */
export function createPrismaClient(databaseUrl: string, poolSize = 10, onError: (error: Error) => void = () => undefined): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ ...connectionOptions(databaseUrl), max: poolSize }, { onPoolError: onError, onConnectionError: onError }),
  });
}
