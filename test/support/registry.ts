import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../../apps/registry/src/config/app-config.js';
import { createRegistryApp } from '../../apps/registry/src/create-registry-app.js';

export const ADMIN_TOKEN = 'test-admin-token-0001';
export const AGENT_TOKEN = 'test-agent-token-0001';
/** A publisher whose scope is every name starting with `acme_`. */
export const PUBLISHER_TOKEN = 'test-publisher-token-0001';

export interface RunningRegistry {
  app: NestFastifyApplication;
  baseUrl: string;
  stop(): Promise<void>;
}

/** Boots the real registry on a free port against `databaseUrl`. */
export async function startRegistry(options: {
  databaseUrl: string;
  skillPaths: string[];
  agentTokens?: boolean;
  queuePrefix?: string;
  env?: Record<string, string>;
}): Promise<RunningRegistry> {
  const config = loadConfig({
    DATABASE_URL: options.databaseUrl,
    SKILL_PATHS: options.skillPaths.join(':'),
    ADMIN_TOKENS: `root=${ADMIN_TOKEN}`,
    AGENT_TOKENS: options.agentTokens ? `bot=${AGENT_TOKEN}` : '',
    PUBLISHER_TOKENS: `acme=${PUBLISHER_TOKEN}:acme_*`,
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    QUEUE_PREFIX: options.queuePrefix ?? 'skill-registry-test',
    ...options.env,
  });
  const app = await createRegistryApp(config);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, baseUrl: `http://127.0.0.1:${address.port}`, stop: () => app.close() };
}

/** fetch + JSON with optional bearer token. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
