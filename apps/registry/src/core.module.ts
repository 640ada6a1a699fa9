import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { createPrismaClient, PrismaClient } from '#database/index.js';
import { AuthGuard } from './auth/auth.guard.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { PRISMA } from './catalog/skills.repository.js';
import { APP_CONFIG, type AppConfig } from './config/app-config.js';
import { ProblemDetailsFilter } from './problem/problem-details.filter.js';

class PrismaShutdown implements OnApplicationShutdown {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}
  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
  }
}

/** Configuration, the database client, authentication and the REST error mapping, for every module. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        {
          provide: PRISMA,
          useFactory: () => {
            const logger = new Logger('Database');
            return createPrismaClient(config.DATABASE_URL, config.DATABASE_POOL_SIZE, (error) =>
              logger.warn(`catalog connection lost: ${error.message}`),
            );
          },
        },
        PrismaShutdown,
        TokenAuthenticator,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
      exports: [APP_CONFIG, PRISMA, TokenAuthenticator],
    };
  }
}
