import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { PrismaClient, migrationsDir, unappliedMigrations } from '../../../../libs/database/src/index.js';
import { Public } from '../auth/auth.guard.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { PRISMA } from '../catalog/skills.repository.js';
import { RegistryHealthReport } from './registry-health.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly catalog: SkillCatalog,
    private readonly report: RegistryHealthReport,
    @Inject(PRISMA) private readonly prisma: PrismaClient,
  ) {}

  @Get('healthz')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process is up' })
  liveness() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database reachable and every migration applied' })
  readiness() {
    return this.health.check([
      () =>
        this.indicators
          .check('database')
          .attempt(async () => {
            await this.prisma.$queryRaw`SELECT 1`;
          })
          .withTimeout(2000),
      () =>
        this.indicators
          .check('migrations')
          .attempt(async () => {
            const applied = await this.prisma.$queryRaw<{ migration_name: string }[]>`
              SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
            const missing = await unappliedMigrations(
              applied.map((row) => row.migration_name),
              migrationsDir(),
            );
            if (missing.length) throw new Error(`pending migrations: ${missing.join(', ')}`);
            return { skills_loaded: this.catalog.size };
          })
          .withTimeout(2000),
    ]);
  }

  @Get('v1/health')
  @ApiOperation({ summary: 'Registry health: totals by status, domain and agent; DRAFT versions with their first error' })
  registryHealth() {
    return this.report.build();
  }
}
