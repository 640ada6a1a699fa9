import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { ExecutorConfigError, loadExecutorConfig } from './config/executor-config.js';
import { ExecutionWorker } from './execution/execution-worker.js';
import { ExecutorModule } from './executor.module.js';

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
  const app = await NestFactory.create<NestFastifyApplication>(ExecutorModule.forRoot({ config }), new FastifyAdapter(), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.listen(config.EXECUTOR_PORT, config.HOST);
  // Consume only once everything is ready.
  await app.get(ExecutionWorker).start();
  console.log(`skill executor ready (health on http://${config.HOST}:${config.EXECUTOR_PORT}/readyz)`);
}

main().catch((error: unknown) => {
  console.error('executor failed to start:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
