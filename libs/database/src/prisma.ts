import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';

export { PrismaClient };
export { Prisma, SkillStatus } from './generated/prisma/client.js';
export type { Skill, SkillVersion, LifecycleEvent } from './generated/prisma/client.js';

/** A Prisma client on the pg driver adapter (no native query engine needed). */
export function createPrismaClient(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
}
