import { createHash } from 'node:crypto';
import { z } from 'zod';
import { checkedList, portVariable, sharedEnvironment } from '../../../../libs/contracts/src/index.js';
import { parseDisabledTools, parseToolAdapters } from '../../../../libs/mcp-bridge/src/index.js';

/** A bearer token and the identity it acts as. */
export interface TokenEntry {
  identity: string;
  tokenHash: string;
}

function tokenList(role: 'admin' | 'agent') {
  return z
    .string()
    .optional()
    .transform((raw, ctx): TokenEntry[] => {
      if (!raw || raw.trim() === '') return [];
      const entries: TokenEntry[] = [];
      for (const item of raw
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)) {
        // `name=token` names the identity; a bare token acts as `<role>-<hash prefix>`.
        const eq = item.indexOf('=');
        const identity = eq > 0 ? item.slice(0, eq) : null;
        const token = eq > 0 ? item.slice(eq + 1) : item;
        if (token.length < 8) {
          ctx.addIssue({ code: 'custom', message: `a token is shorter than 8 characters` });
          return z.NEVER;
        }
        const tokenHash = createHash('sha256').update(token).digest('hex');
        entries.push({ identity: identity ?? `${role}-${tokenHash.slice(0, 8)}`, tokenHash });
      }
      return entries;
    });
}

const port = portVariable;

export const configSchema = z.object({
  DATABASE_URL: sharedEnvironment.DATABASE_URL,
  REDIS_URL: sharedEnvironment.REDIS_URL,
  QUEUE_PREFIX: sharedEnvironment.QUEUE_PREFIX,
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: port.default(3000),
  /** gRPC port (0 picks a free one); unset: 50051, or a free port when PORT is 0 (see grpcPortOf). */
  GRPC_PORT: port.optional(),
  SKILL_PATHS: z
    .string()
    .default('./skills')
    .transform((raw) =>
      raw
        .split(':')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .refine((roots) => roots.length > 0, 'must name at least one directory'),
  ADMIN_TOKENS: tokenList('admin'),
  AGENT_TOKENS: tokenList('agent'),
  LOG_LEVEL: sharedEnvironment.LOG_LEVEL,
  /** Tool adapters (`adapter=url`, comma-separated), so GET /v1/tools and skill views show availability. */
  TOOL_ADAPTERS: checkedList(parseToolAdapters),
  TOOLS_DISABLED: checkedList(parseDisabledTools),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Host names the HTTP API answers to (DNS-rebinding protection); `*` for any. Default: see HostGuard. */
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ),
  /** Limits of one skill package (all files, file count, one file); a package over one is refused naming it. */
  PACKAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(20 * 1024 * 1024),
  PACKAGE_MAX_FILES: z.coerce.number().int().min(1).default(2000),
  PACKAGE_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** Mounts GET /bench/baseline for bench/registry-read; never needed in production. */
  BENCH_BASELINE_ROUTE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
});

export type AppConfig = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses and validates the environment once; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return parsed.data;
}

export const DEFAULT_GRPC_PORT = 50051;

/** The gRPC port to bind: GRPC_PORT, else 50051 — or a free port when PORT is 0, so throwaway instances (tests) never collide. */
export function grpcPortOf(config: Pick<AppConfig, 'GRPC_PORT' | 'PORT'>): number {
  return config.GRPC_PORT ?? (config.PORT === 0 ? 0 : DEFAULT_GRPC_PORT);
}

/** The package limits of the configuration, as the package store takes them. */
export function packageLimitsOf(config: Pick<AppConfig, 'PACKAGE_MAX_BYTES' | 'PACKAGE_MAX_FILES' | 'PACKAGE_MAX_FILE_BYTES'>) {
  return { maxTotalBytes: config.PACKAGE_MAX_BYTES, maxFiles: config.PACKAGE_MAX_FILES, maxFileBytes: config.PACKAGE_MAX_FILE_BYTES };
}

/** Injection token of the parsed configuration. */
export const APP_CONFIG = Symbol('APP_CONFIG');
