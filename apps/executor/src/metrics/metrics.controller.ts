import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { metricsAuthorized } from '#observability/index.js';
import { EXECUTOR_CONFIG, type ExecutorConfig } from '../config/executor-config.js';
import { ExecutorMetrics } from './executor-metrics.js';

/** Prometheus scrape endpoint of the executor (bearer METRICS_TOKEN when set). */
@Controller()
export class ExecutorMetricsController {
  constructor(
    private readonly metrics: ExecutorMetrics,
    @Inject(EXECUTOR_CONFIG) private readonly config: ExecutorConfig,
  ) {}

  @Get('metrics')
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    if (!metricsAuthorized(this.config.METRICS_TOKEN, authorization)) {
      void reply
        .status(401)
        .header('WWW-Authenticate', 'Bearer')
        .send({ status: 401, code: 'UNAUTHENTICATED', detail: 'GET /metrics needs the METRICS_TOKEN bearer token' });
      return;
    }
    void reply.header('Content-Type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
