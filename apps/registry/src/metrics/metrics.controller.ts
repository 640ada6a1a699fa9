import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { metricsAuthorized } from '#observability/index.js';
import { Public } from '../auth/auth.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Unauthenticated } from '../auth/token-authenticator.js';
import { RegistryMetrics } from './registry-metrics.js';
import { ApiContent, ApiProblems } from '../openapi/api-decorators.js';

/** Prometheus scrape endpoint (bearer METRICS_TOKEN when set; the API's tokens do not apply). */
@ApiTags('metrics')
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: RegistryMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Public()
  @ApiOperation({
    summary: 'Prometheus metrics of the registry (text exposition format); the metric list is in docs/operations.md',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; the API tokens do not apply.',
  })
  @ApiSecurity({})
  @ApiSecurity('metricsToken')
  @ApiContent(200, { 'text/plain': { type: 'string', description: 'Prometheus text format 0.0.4' } }, { description: 'The metrics' })
  @ApiProblems('UNAUTHENTICATED')
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    if (!metricsAuthorized(this.config.METRICS_TOKEN, authorization))
      throw new Unauthenticated('GET /metrics needs the METRICS_TOKEN bearer token');
    void reply.header('Content-Type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
