import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { RedisConnection } from '#executions/index.js';

/** Whether the executor's database and Redis answer now (readiness). */
@Injectable()
export class InfrastructureReadiness {
  constructor(
    @Inject('PG_POOL_HEALTH') private readonly pool: pg.Pool,
    @Inject('EVENTS_REDIS_HEALTH') private readonly redis: RedisConnection,
  ) {}

  async check(): Promise<{ database: 'up' | 'down'; redis: 'up' | 'down' }> {
    const checks = await Promise.allSettled([this.pool.query('SELECT 1'), this.redis.ping()]);
    const [database, redis] = checks.map((check) => (check.status === 'fulfilled' ? 'up' : 'down')) as ['up' | 'down', 'up' | 'down'];
    return { database, redis };
  }
}
