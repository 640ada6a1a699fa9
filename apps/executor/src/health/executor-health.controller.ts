import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { ExecutionRunner } from '../execution/execution-runner.js';
import { ScriptToolRunner } from '../scripts/script-tool-runner.js';

/**
 * Liveness and readiness of an executor process (database and Redis reachable). Both say whether script
 * tools can run here; that does not make the executor unready, it still serves TypeScript skills.
 */
@Controller()
export class ExecutorHealthController {
  constructor(
    @Inject('PG_POOL_HEALTH') private readonly pool: pg.Pool,
    @Inject('EVENTS_REDIS_HEALTH') private readonly redis: Redis,
    private readonly runner: ExecutionRunner,
    private readonly scripts: ScriptToolRunner,
  ) {}

  @Get('healthz')
  liveness() {
    return { status: 'ok', running: this.runner.runningIds().length, script_tools: this.scripts.status() };
  }

  @Get('readyz')
  async readiness() {
    const checks = await Promise.allSettled([this.pool.query('SELECT 1'), this.redis.ping()]);
    const [database, redis] = checks.map((check) => (check.status === 'fulfilled' ? 'up' : 'down'));
    const scriptTools = this.scripts.status();
    if (database !== 'up' || redis !== 'up')
      throw new ServiceUnavailableException({ status: 'error', database, redis, script_tools: scriptTools });
    return { status: 'ok', database, redis, running: this.runner.runningIds().length, script_tools: scriptTools };
  }
}
