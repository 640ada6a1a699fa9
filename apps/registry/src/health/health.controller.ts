import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '../auth/auth.guard.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { DiscoveryService } from '../versions/discovery.service.js';
import { catalogReadiness } from './catalog-readiness.js';
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
    private readonly discovery: DiscoveryService,
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
  @ApiOperation({
    summary: 'Readiness: database reachable, every migration applied, every package discovery found in the catalog or refused',
  })
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
      () => {
        const catalog = catalogReadiness(this.discovery.lastReport, this.catalog);
        const session = this.indicators.check('catalog');
        return catalog.up ? session.up(catalog.data) : session.down(catalog.data);
      },
    ]);
  }

  @Get('v1/health')
  @ApiOperation({ summary: 'Registry health: totals by status, domain and agent; DRAFTs with their first error; refused packages' })
  @ApiJson(200, registryHealthView, { description: 'The catalog overview' })
  registryHealth(): RegistryHealthView {
    return this.report.build();
  }
}
