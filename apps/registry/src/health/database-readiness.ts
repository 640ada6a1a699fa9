import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient, migrationsDir, unappliedMigrations } from '#database/index.js';
import { PRISMA } from '../catalog/skills.repository.js';

/** What readiness asks of the database: that it answers, and which migrations are not applied yet. */
@Injectable()
export class DatabaseReadiness {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  async ping(): Promise<void> {
    await this.prisma.$queryRaw`SELECT 1`;
  }

  async pendingMigrations(): Promise<string[]> {
    const applied = await this.prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    return unappliedMigrations(
      applied.map((row) => row.migration_name),
      migrationsDir(),
    );
  }
}
