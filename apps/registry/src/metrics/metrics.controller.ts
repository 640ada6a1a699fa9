import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { metricsAuthorized } from '../../../../libs/observability/src/index.js';
import { Public } from '../auth/auth.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Unauthenticated } from '../auth/token-authenticator.js';
import { RegistryMetrics } from './registry-metrics.js';

/** Prometheus scrape endpoint (bearer METRICS_TOKEN when set; the API's tokens do not apply). */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: RegistryMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Public()
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    if (!metricsAuthorized(this.config.METRICS_TOKEN, authorization))
      throw new Unauthenticated('GET /metrics needs the METRICS_TOKEN bearer token');
    void reply.header('Content-Type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
