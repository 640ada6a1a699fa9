import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';
import { createPgPool } from '#database/index.js';
import { TwinStore, twinLimitsOf } from '#twin/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const TWIN_PG = Symbol('TWIN_PG');

@Injectable()
class TwinConnection implements OnApplicationShutdown {
  constructor(@Inject(TWIN_PG) private readonly pool: pg.Pool) {}
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** The digital twin's store (libs/twin) on its own small pool, for the REST, gRPC and MCP features. */
@Module({
  providers: [
    {
      provide: TWIN_PG,
      useFactory: (config: AppConfig) => {
        const logger = new Logger('Database');
        return createPgPool(config.DATABASE_URL, 4, (error) => logger.warn(`twin connection lost: ${error.message}`));
      },
      inject: [APP_CONFIG],
    },
    {
      provide: TwinStore,
      useFactory: (pool: pg.Pool, config: AppConfig) => new TwinStore(pool, twinLimitsOf(config)),
      inject: [TWIN_PG, APP_CONFIG],
    },
    TwinConnection,
  ],
  exports: [TwinStore],
})
export class TwinStoreModule {}
