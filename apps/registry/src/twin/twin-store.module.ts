import { Module } from '@nestjs/common';
import type pg from 'pg';
import { TwinStore, twinLimitsOf } from '#twin/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DATABASE_POOL } from '../config/database-pool.js';

/** The digital twin's store (libs/twin) on the process's pool, for the REST, gRPC and MCP features. */
@Module({
  providers: [
    {
      provide: TwinStore,
      useFactory: (pool: pg.Pool, config: AppConfig) => new TwinStore(pool, twinLimitsOf(config)),
      inject: [DATABASE_POOL, APP_CONFIG],
    },
  ],
  exports: [TwinStore],
})
export class TwinStoreModule {}
