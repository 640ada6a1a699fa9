import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck } from '@nestjs/terminus';
import { Public } from '../auth/auth.guard.js';
import { RegistryReadiness } from './registry-readiness.js';
import { RegistryHealthReport } from './registry-health.js';
import { ApiJson, ApiProblems } from '../openapi/api-decorators.js';
import { livenessView, readinessView, registryHealthView, type RegistryHealthView } from './health.views.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly checks: RegistryReadiness,
    private readonly report: RegistryHealthReport,
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
    return this.checks.check();
  }

  @Get('v1/health')
  @ApiOperation({ summary: 'Registry health: totals by status, domain and agent; DRAFTs with their first error; refused packages' })
  @ApiJson(200, registryHealthView, { description: 'The catalog overview' })
  registryHealth(): RegistryHealthView {
    return this.report.build();
  }
}
