import { adapterConfigFromEnv } from './config.js';
import { jsonLogger } from './logger.js';
import { startAdapterServer } from './server.js';
import { startTracing } from '#observability/tracing.js';
import type { AdapterDefinition } from './server.js';

/** Entry point of an adapter process: read the environment (fail fast), serve, stop cleanly on SIGTERM/SIGINT. */
export async function runAdapterMain(adapter: AdapterDefinition, defaultPort: number): Promise<void> {
  let config;
  try {
    config = adapterConfigFromEnv(defaultPort);
  } catch (error) {
    process.stderr.write(`${adapter.name} adapter: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const logger = jsonLogger(adapter.name, config.logLevel);
  const tracing = await startTracing(`skill-registry-adapter-${adapter.name}`);
  const running = await startAdapterServer(adapter, { ...config, logger });
  const programs = await Promise.all(adapter.programs.map((program) => program.probe()));
  for (const program of programs) {
    if (!program.found)
      logger.warn(`${program.name} is not installed: its tools will report unavailable`, { debianPackage: program.debianPackage });
  }
  logger.info('adapter listening', { url: running.url, health: running.healthUrl, programs });
  const stop = (signal: string) => {
    logger.info('stopping', { signal });
    void running
      .close()
      .then(() => tracing.shutdown())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
