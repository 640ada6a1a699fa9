import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '../auth/auth.guard.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { DatabaseReadiness } from './database-readiness.js';
import { RegistryHealthReport } from './registry-health.js';
import { ApiJson, ApiProblems } from '../openapi/api-decorators.js';
import { livenessView, readinessView, registryHealthView, type RegistryHealthView } from './health.views.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly catalog: SkillCatalog,
    private readonly report: RegistryHealthReport,
    private readonly database: DatabaseReadiness,
  ) {}

  @Get('healthz')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiJson(200, livenessView, { description: 'The process is up' })
  liveness(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({ summary: 'Readiness: database reachable and every migration applied' })
  @ApiJson(200, readinessView, { description: 'Ready: every check passed', headers: ['Cache-Control'] })
  @ApiProblems('NOT_READY')
  readiness() {
    return this.health.check([
      () =>
        this.indicators
          .check('database')
          .attempt(() => this.database.ping())
          .withTimeout(2000),
      () =>
        this.indicators
          .check('migrations')
          .attempt(async () => {
            const missing = await this.database.pendingMigrations();
            if (missing.length) throw new Error(`pending migrations: ${missing.join(', ')}`);
            return { skills_loaded: this.catalog.size };
          })
          .withTimeout(2000),
    ]);
  }

  @Get('v1/health')
  @ApiOperation({ summary: 'Registry health: totals by status, domain and agent; DRAFT versions with their first error' })
  @ApiJson(200, registryHealthView, { description: 'The catalog overview' })
  registryHealth(): RegistryHealthView {
    return this.report.build();
  }
}
