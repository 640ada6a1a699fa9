import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
// Not the package index: that loads the Prisma client, which the executor does not use (~10 MB).
import { applyMigrations, ensureDatabase } from '#database/migrator.js';
import { migrationsDir } from '#database/paths.js';
import { ExecutorConfigError, loadExecutorConfig } from './config/executor-config.js';
import { ExecutionWorker } from './execution/execution-worker.js';
import { ExecutorModule } from './executor.module.js';
import { startTracing } from '#observability/index.js';
import { databaseEndpointsOf } from '#contracts/index.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadExecutorConfig();
  } catch (error) {
    if (error instanceof ExecutorConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  // OTEL_* configure trace export (off by default).
  const tracing = await startTracing('skill-registry-executor');
  // Same idempotent, lock-protected step as the registry: whichever process starts first migrates.
  // Direct (not through a pooler): the migrations hold an advisory lock for their whole session.
  const { direct } = databaseEndpointsOf(config);
  await ensureDatabase(direct);
  await applyMigrations(direct, migrationsDir());
  const app = await NestFactory.create<NestFastifyApplication>(ExecutorModule.forRoot({ config }), new FastifyAdapter(), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  await app.listen(config.EXECUTOR_PORT, config.HOST);
  // Consume only once everything is ready.
  await app.get(ExecutionWorker).start();
  // Graceful stop: Nest's shutdown hooks run (workers drain, connections close), then exit 0.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app
        .close()
        .then(() => tracing.shutdown())
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          console.error('shutdown failed:', error);
          process.exit(1);
        });
    });
  }
  console.log(`skill executor ready (health on http://${config.HOST}:${config.EXECUTOR_PORT}/readyz)`);
}

main().catch((error: unknown) => {
  console.error('executor failed to start:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
