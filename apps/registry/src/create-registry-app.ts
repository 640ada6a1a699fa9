import 'reflect-metadata';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger, PARAMS_PROVIDER_TOKEN, type Params } from 'nestjs-pino';
import { applyMigrations, ensureDatabase, migrationsDir } from '#database/index.js';
import { accessLevelOf } from './auth/auth.guard.js';
import { TokenAuthenticator } from './auth/token-authenticator.js';
import { SkillCatalog } from './catalog/skill-catalog.js';
import { type AppConfig, grpcPortOf } from './config/app-config.js';
import { AdoptLegacyPackages } from './versions/adopt-legacy-packages.js';
import { DiscoveryService } from './versions/discovery.service.js';
import { SkillWatcher } from './versions/skill-watcher.js';
import { GrpcEndpoint } from './grpc/grpc-endpoint.js';
import { RegistryGrpcServer, maxRequestBytes } from './grpc/registry-grpc-server.js';
import { connectionOptions } from './http-edge/connection-limits.js';
import { HostGuard } from './http-edge/host-guard.js';
import { frameworkErrorHandler, installHttpEdge } from './http-edge/http-edge.js';
import { installReadFastPath } from './http-edge/read-fast-path.js';
import { ExecuteSkill } from './executions/execute-skill.js';
import { installExecuteFront } from './executions/execute-front.js';
import { ExecutionsController } from './executions/executions.controller.js';
import { RegistryModule } from './registry.module.js';
import { RegistryMetrics } from './metrics/registry-metrics.js';
import { SearchReads } from './search/search-reads.js';
import { SkillReads } from './skills/skill-reads.js';
import { createRegistryDocument } from './openapi/registry-document.js';
import { startTracing } from '#observability/index.js';
import { installRequestTracing } from './tracing/request-tracing.js';
import { parseQueryString } from './query-string.js';
import { databaseEndpointsOf } from '#contracts/index.js';

const BODY_LIMIT_BYTES = 1024 * 1024;

export interface RegistryAppOptions {
  /** Answer the hot catalog reads before the Nest pipeline (see read-fast-path.ts); off only to compare with the Nest path. */
  readFastPath?: boolean;
  /** Answer `POST /v1/skills/:name/executions` before Nest's pipeline (see execute-front.ts); off only to compare with the Nest path. */
  executeFront?: boolean;
}

/** Whether pino-http logs every request (its `autoLogging`, on unless turned off), as RegistryModule configured it. */
function logsEveryRequest(params: Params): boolean {
  const http = Array.isArray(params.pinoHttp) ? params.pinoHttp[0] : params.pinoHttp;
  return (http as { autoLogging?: unknown } | undefined)?.autoLogging !== false;
}

/**
 * Builds the registry: database created and migrated, catalog loaded, SKILL_PATHS discovered, and
 * the gRPC server listening on GRPC_PORT (the bound port is `app.get(GrpcEndpoint).port`). The
 * caller decides where REST listens.
 */
export async function createRegistryApp(config: AppConfig, options: RegistryAppOptions = {}): Promise<NestFastifyApplication> {
  // Direct (not through a pooler): the migrations hold an advisory lock for their whole session.
  const { direct } = databaseEndpointsOf(config);
  await ensureDatabase(direct);
  await applyMigrations(direct, migrationsDir());

  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    frameworkErrors: frameworkErrorHandler,
    ...connectionOptions(config),
    // request.ip, .host and .protocol from the X-Forwarded-* headers of these peers only (TRUST_PROXY; none by default).
    ...(config.TRUST_PROXY.length > 0 ? { trustProxy: config.TRUST_PROXY } : {}),
    // Strict percent-encoding: a malformed query is refused with 400 where queries are validated (query-string.ts).
    routerOptions: { querystringParser: parseQueryString },
  });
  const hostGuard = new HostGuard(config.ALLOWED_HOSTS, config.HOST);
  // Installed before the application exists, so that the fast path can answer ahead of its middleware (read-fast-path.ts).
  const readFastPath =
    options.readFastPath === false
      ? null
      : installReadFastPath(adapter.getInstance(), {
          hostGuard,
          targets: () => ({
            skills: app.get(SkillReads),
            search: app.get(SearchReads),
            authenticator: app.get(TokenAuthenticator),
            metrics: app.get(RegistryMetrics),
          }),
          // The Nest adapter's own flag (set when app.close() begins); it has no public accessor.
          shuttingDown: () => (adapter as unknown as { isShuttingDown?: boolean }).isShuttingDown === true,
          forwardedHosts: config.TRUST_PROXY.length > 0,
        });
  // Likewise before the routes are registered: the front adds its hook to the execute route as Nest registers it.
  if (options.executeFront !== false)
    installExecuteFront(adapter.getInstance(), {
      targets: () => ({
        executeSkill: app.get(ExecuteSkill),
        authenticator: app.get(TokenAuthenticator),
        accessLevel: accessLevelOf(app.get(Reflector), ExecutionsController.prototype.execute, ExecutionsController),
      }),
    });
  const app = await NestFactory.create<NestFastifyApplication>(RegistryModule.forRoot(config), adapter, {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
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
  readFastPath?.placeOnceBuilt({ ahead: !tracing.enabled && !logsEveryRequest(app.get<Params>(PARAMS_PROVIDER_TOKEN)) });
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
  // Bodies and queries are parsed with zod where each route reads them (validation.ts: parseOrThrow).

  // The OpenAPI contract (openapi/registry-document.ts); test/e2e/openapi-contract.e2e-spec.ts holds the routes to it.
  // Built on the first request for it (once), not at every start.
  SwaggerModule.setup('docs', app, () => createRegistryDocument(app), { jsonDocumentUrl: 'docs-json' });

  // Hybrid application: gRPC shares the modules, and the global pipes and filters, of REST.
  const grpcServer = new RegistryGrpcServer(config.HOST, grpcPortOf(config), maxRequestBytes(config.TWIN_MAX_REVISION_BYTES));
  app.connectMicroservice({ strategy: grpcServer }, { inheritAppConfig: true });

  await app.init();
  await app.get(SkillCatalog).start();
  await app.get(AdoptLegacyPackages).run();
  await app.get(DiscoveryService).discover();
  await app.get(SkillWatcher).start();
  // gRPC serves once the catalog is loaded, as REST does (its caller listens after this returns).
  await app.startAllMicroservices();
  app.get(GrpcEndpoint).port = grpcServer.port;
  return app;
}
