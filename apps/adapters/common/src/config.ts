import type { AdapterLimits } from './tool.js';

/** Settings every adapter reads from its environment at start. */
export interface AdapterConfig {
  host: string;
  port: number;
  limits: AdapterLimits;
  maxRequestBytes: number;
  logLevel: 'info' | 'warn' | 'error' | 'silent';
}

/** An environment variable with an unusable value; the message names it. */
class AdapterConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdapterConfigError';
  }
}

/**
 * Read `HOST` (default 127.0.0.1), `PORT` (default per adapter), `MAX_RUN_SECONDS` (default 300),
 * `MAX_OUTPUT_BYTES` (default 64 MiB), `MAX_REQUEST_BYTES` (default 32 MiB) and `LOG_LEVEL` (default info).
 */
export function adapterConfigFromEnv(defaultPort: number, env: Record<string, string | undefined> = process.env): AdapterConfig {
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['info', 'warn', 'error', 'silent'].includes(logLevel)) {
    throw new AdapterConfigError(`LOG_LEVEL: '${logLevel}' is not one of info, warn, error, silent`);
  }
  return {
    host: env.HOST?.trim() || '127.0.0.1',
    port: integer(env, 'PORT', defaultPort, 0, 65535),
    limits: {
      maxRunMs: integer(env, 'MAX_RUN_SECONDS', 300, 1, 86_400) * 1000,
      maxOutputBytes: integer(env, 'MAX_OUTPUT_BYTES', 64 * 1024 * 1024, 1024, 2 ** 31),
    },
    maxRequestBytes: integer(env, 'MAX_REQUEST_BYTES', 32 * 1024 * 1024, 1024, 2 ** 31),
    logLevel: logLevel as AdapterConfig['logLevel'],
  };
}

function integer(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new AdapterConfigError(`${name}: '${raw}' is not an integer between ${min} and ${max}`);
  }
  return value;
}
