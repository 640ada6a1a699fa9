import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { applyMigrations, ensureDatabase, migrationsDir } from '../../../libs/database/src/index.js';
import { SkillCatalog } from './catalog/skill-catalog.js';
import { type AppConfig, grpcPortOf } from './config/app-config.js';
import { SkillWatcher } from './discovery/skill-watcher.js';
import { DiscoveryService } from './discovery/discovery.service.js';
import { GrpcEndpoint } from './grpc/grpc-endpoint.js';
import { RegistryGrpcServer, maxRequestBytes } from './grpc/registry-grpc-server.js';
import { HostGuard } from './http-edge/host-guard.js';
import { frameworkErrorHandler, installHttpEdge } from './http-edge/http-edge.js';
import { RegistryModule } from './registry.module.js';
import { RegistryMetrics } from './metrics/registry-metrics.js';
import { createValidationPipe } from './validation.js';
import { startTracing } from '../../../libs/observability/src/index.js';
import { installRequestTracing } from './tracing/request-tracing.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Builds the registry: database created and migrated, catalog loaded, SKILL_PATHS discovered, and
 * the gRPC server listening on GRPC_PORT (the bound port is `app.get(GrpcEndpoint).port`). The
 * caller decides where REST listens.
 */
export async function createRegistryApp(config: AppConfig): Promise<NestFastifyApplication> {
  await ensureDatabase(config.DATABASE_URL);
  await applyMigrations(config.DATABASE_URL, migrationsDir());

  const app = await NestFactory.create<NestFastifyApplication>(
    RegistryModule.forRoot(config),
    new FastifyAdapter({ bodyLimit: BODY_LIMIT_BYTES, frameworkErrors: frameworkErrorHandler }),
    { bufferLogs: true, bodyParser: false },
  );
  app.useLogger(app.get(Logger));
  const hostGuard = new HostGuard(config.ALLOWED_HOSTS, config.HOST);
  installHttpEdge(app, { bodyLimit: BODY_LIMIT_BYTES, hostGuard });
  // OTEL_* configure export (off by default); spans per request only when it is on.
  const tracing = await startTracing('skill-registry');
  if (tracing.enabled) {
    installRequestTracing(app.getHttpAdapter().getInstance());
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onClose', async () => tracing.flush());
  }
  // Every HTTP answer (REST and MCP) counted by route pattern, never by raw path; gRPC has its interceptor.
  const metrics = app.get(RegistryMetrics);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.observe(route.startsWith('/mcp') ? 'mcp' : 'rest', route, request.method, reply.statusCode, reply.elapsedTime);
      done();
    });
  app.get(Logger).log(`HTTP answers to Host ${hostGuard.names?.join(', ') ?? '* (any; ALLOWED_HOSTS=*)'}`, 'HttpEdge');
  app.useGlobalPipes(createValidationPipe());

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Skill Registry')
      .setDescription('Catalog, lifecycle and execution of engineering skills for AI agents')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });

  // Hybrid application: gRPC shares the modules, and the global pipes and filters, of REST.
  const grpcServer = new RegistryGrpcServer(config.HOST, grpcPortOf(config), maxRequestBytes(config.TWIN_MAX_REVISION_BYTES));
  app.connectMicroservice({ strategy: grpcServer }, { inheritAppConfig: true });

  await app.init();
  await app.get(SkillCatalog).start();
  await app.get(DiscoveryService).discover();
  await app.get(SkillWatcher).start();
  // gRPC serves once the catalog is loaded, as REST does (its caller listens after this returns).
  await app.startAllMicroservices();
  app.get(GrpcEndpoint).port = grpcServer.port;
  return app;
}
