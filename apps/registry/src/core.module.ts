import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type pg from 'pg';
import { databaseEndpointsOf, pooledStatementTimeoutMs } from '#contracts/index.js';
import { createPgPool, createPrismaClient, PgListener, PrismaClient } from '#database/index.js';
import { PackageStore } from '#package-store/index.js';
import { TwinStore, twinLimitsOf } from '#twin/index.js';
import { AuthGuard } from './auth/auth.guard.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { PRISMA } from './catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { DATABASE_LISTENER, DATABASE_POOL } from './config/database-pool.js';
import { ProblemDetailsFilter } from './problem/problem-details.filter.js';

/** Closes the process's listener and pool once (Prisma's disconnect ends the pool; the second end is then a no-op). */
class DatabaseShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(DATABASE_POOL) private readonly pool: pg.Pool,
    @Inject(DATABASE_LISTENER) private readonly listener: PgListener,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.listener.stop();
    await this.prisma.$disconnect().catch(() => undefined);
    if (!this.pool.ended) await this.pool.end().catch(() => undefined);
  }
}

/**
 * Configuration, the process's one database pool and one LISTEN connection with what stands on them (the catalog's Prisma client, the
 * package store, the twin store), authentication and the REST error mapping, for every module.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        {
          provide: DATABASE_POOL,
          useFactory: () => {
            const logger = new Logger('Database');
            return createPgPool(
              config.DATABASE_URL,
              config.DATABASE_POOL_SIZE,
              (error) => logger.warn(`connection lost: ${error.message}`),
              pooledStatementTimeoutMs(config),
            );
          },
        },
        // LISTEN holds its session: direct to Postgres, never through a transaction pooler.
        { provide: DATABASE_LISTENER, useFactory: () => new PgListener(databaseEndpointsOf(config).direct) },
        {
          provide: PRISMA,
          useFactory: (pool: pg.Pool) => {
            const logger = new Logger('Database');
            return createPrismaClient(pool, (error) => logger.warn(`catalog connection lost: ${error.message}`));
          },
          inject: [DATABASE_POOL],
        },
        { provide: PackageStore, useFactory: (pool: pg.Pool) => new PackageStore(pool), inject: [DATABASE_POOL] },
        { provide: TwinStore, useFactory: (pool: pg.Pool) => new TwinStore(pool, twinLimitsOf(config)), inject: [DATABASE_POOL] },
        DatabaseShutdown,
        TokenAuthenticator,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [APP_CONFIG, DATABASE_POOL, DATABASE_LISTENER, PRISMA, PackageStore, TwinStore, TokenAuthenticator],
    };
  }
}
