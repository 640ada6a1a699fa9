import { Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';
import { createPgPool } from '#database/index.js';
import { PackageStore } from '#package-store/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const PACKAGES_PG = Symbol('PACKAGES_PG');

@Injectable()
class PackagesConnection implements OnApplicationShutdown {
  constructor(@Inject(PACKAGES_PG) private readonly pool: pg.Pool) {}
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** The content-addressed package store of the registry (libs/package-store), on its own small pool. */
@Module({
  providers: [
    {
      provide: PACKAGES_PG,
      useFactory: (config: AppConfig) => {
        const logger = new Logger('Database');
        return createPgPool(config.DATABASE_URL, 4, (error) => logger.warn(`package store connection lost: ${error.message}`));
      },
      inject: [APP_CONFIG],
    },
    { provide: PackageStore, useFactory: (pool: pg.Pool) => new PackageStore(pool), inject: [PACKAGES_PG] },
    PackagesConnection,
  ],
  exports: [PackageStore],
})
export class PackageStoreModule {}
