import { ConfigError, loadConfig } from './config/app-config.js';
import { createRegistryApp } from './create-registry-app.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const app = await createRegistryApp(config);
  await app.listen(config.PORT, config.HOST);
  // Graceful stop: Nest's shutdown hooks run (workers drain, connections close), then exit 0.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app
        .close()
        .then(() => process.exit(0))
        .catch((error: unknown) => {
          console.error('shutdown failed:', error);
          process.exit(1);
        });
    });
  }
  console.log(`skill registry listening on http://${config.HOST}:${config.PORT} (docs at /docs)`);
}

main().catch((error: unknown) => {
  console.error('registry failed to start:', error instanceof Error ? error.stack : error);
  process.exit(1);
});
