import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { ExecutionRunner } from '../execution/execution-runner.js';

/** Liveness and readiness of an executor process (database and Redis reachable). */
@Controller()
export class ExecutorHealthController {
  constructor(
    @Inject('PG_POOL_HEALTH') private readonly pool: pg.Pool,
    @Inject('EVENTS_REDIS_HEALTH') private readonly redis: Redis,
    private readonly runner: ExecutionRunner,
  ) {}

  @Get('healthz')
  liveness() {
    return { status: 'ok', running: this.runner.runningIds().length };
  }

  @Get('readyz')
  async readiness() {
    const checks = await Promise.allSettled([this.pool.query('SELECT 1'), this.redis.ping()]);
    const [database, redis] = checks.map((check) => (check.status === 'fulfilled' ? 'up' : 'down'));
    if (database !== 'up' || redis !== 'up') throw new ServiceUnavailableException({ status: 'error', database, redis });
    return { status: 'ok', database, redis, running: this.runner.runningIds().length };
  }
}
