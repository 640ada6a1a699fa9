import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { AccessModule } from './access/access.module.js';
import { ConsoleModule } from './console/console.module.js';
import { CatalogModule } from './catalog/catalog.module.js';
import type { AppConfig } from './config/app-config.js';
import { CoreModule } from './core.module.js';
import { CompatibilityModule } from './compatibility/compatibility.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { DependenciesModule } from './dependencies/dependencies.module.js';
import { PackagesModule } from './packages/packages.module.js';
import { EventsModule } from './events/events.module.js';
import { ExecutionsModule } from './executions/executions.module.js';
import { GrpcModule } from './grpc/grpc.module.js';
import { HealthModule } from './health/health.module.js';
import { BaselineController } from './bench/baseline.controller.js';
import { McpModule } from './mcp/mcp.module.js';
import { SearchModule } from './search/search.module.js';
import { SkillsModule } from './skills/skills.module.js';
import { AdapterToolsModule } from './adapter-tools/adapter-tools.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { ToolDefinitionsModule } from './tool-definitions/tool-definitions.module.js';
import { TwinModule } from './twin/twin.module.js';
import { VersionsModule } from './versions/versions.module.js';

@Module({})
export class RegistryModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: RegistryModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.LOG_LEVEL,
            autoLogging: config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace',
            redact: ['req.headers.authorization'],
          },
        }),
        CoreModule.forRoot(config),
        CatalogModule,
        MetricsModule,
        VersionsModule,
        PackagesModule,
        SkillsModule,
        DependenciesModule,
        CompatibilityModule,
        SearchModule,
        ExecutionsModule,
        EventsModule,
        HealthModule,
        GrpcModule,
        AdapterToolsModule,
        ToolDefinitionsModule,
        TwinModule,
        McpModule,
        AgentsModule,
        AccessModule,
        ConsoleModule,
      ],
      controllers: config.BENCH_BASELINE_ROUTE ? [BaselineController] : [],
    };
  }
}
