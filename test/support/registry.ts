import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../../apps/registry/src/config/app-config.js';
import { createRegistryApp } from '../../apps/registry/src/create-registry-app.js';
import { describeCatalog } from './catalog-diagnosis.js';

export const ADMIN_TOKEN = 'test-admin-token-0001';
export const AGENT_TOKEN = 'test-agent-token-0001';
/** A publisher whose scope is every name starting with `acme_`. */
export const PUBLISHER_TOKEN = 'test-publisher-token-0001';

export interface RunningRegistry {
  app: NestFastifyApplication;
  baseUrl: string;
  stop(): Promise<void>;
  /** The discovery report, the catalog and the database rows, for the message of a failing catalog-dependent step. */
  describeCatalog(): Promise<string>;
}

/**
 * Boots the real registry on a free port against `databaseUrl`, and fails (with the discovery report,
 * the catalog and the database rows) unless /readyz says it is ready: every test on a registry then
 * starts from a catalog that holds every package discovery stored.
 */
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
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const ready = await call(baseUrl, 'GET', '/readyz');
  if (ready.status !== 200) {
    const description = await describeCatalog(app);
    await app.close();
    throw new Error(`the registry started but is not ready: ${JSON.stringify(ready.body)}\n${description}`);
  }
  return { app, baseUrl, stop: () => app.close(), describeCatalog: () => describeCatalog(app) };
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
