import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { checkedList, portVariable, redisTopologyIssues, sharedEnvironment } from '#contracts/index.js';
import { hooksFileVariable } from '#hooks/index.js';
import { parseDisabledTools, parseFeatureFlags, parseToolAdapters } from '#mcp-bridge/index.js';
import { TWIN_LIMIT_VARIABLES } from '#twin/index.js';
import { parseTrustedProxies } from './trusted-proxies.js';

/** A bearer token and the identity it acts as; a publisher's also the skill names it may publish. */
export interface TokenEntry {
  identity: string;
  tokenHash: string;
  scopes?: string[];
}

/** A publisher scope: `acme_*` (names starting with `acme_`), an exact name, or `*` for every name. */
const SCOPE_PATTERN = /^(\*|[a-z][a-z0-9_-]*\*?)$/;

/**
 * A comma-separated token list: `name=token` names the identity, a bare token acts as
 * `<role>-<hash prefix>`. Publisher entries end in `:scope|scope…` (`acme=tok-…:acme_*|shared_tool`).
 */
function tokenList(role: 'admin' | 'agent' | 'publisher') {
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
        const entry = parseTokenEntry(item, role);
        if (typeof entry === 'string') {
          ctx.addIssue({ code: 'custom', message: entry });
          return z.NEVER;
        }
        entries.push(entry);
      }
      return entries;
    });
}

/** One entry of a token list, or the reason it is malformed (never echoing the token). */
function parseTokenEntry(item: string, role: 'admin' | 'agent' | 'publisher'): TokenEntry | string {
  const eq = item.indexOf('=');
  const identity = eq > 0 ? item.slice(0, eq) : null;
  let token = eq > 0 ? item.slice(eq + 1) : item;
  let scopes: string[] | undefined;
  if (role === 'publisher') {
    const colon = token.lastIndexOf(':');
    if (colon < 0) return `a publisher token${identity ? ` (${identity})` : ''} has no scopes: write name=token:prefix_*|other_name`;
    scopes = token
      .slice(colon + 1)
      .split('|')
      .map((scope) => scope.trim());
    token = token.slice(0, colon);
    const bad = scopes.find((scope) => !SCOPE_PATTERN.test(scope));
    if (bad !== undefined) return `publisher scope '${bad}' must be a skill name, a name prefix ending in *, or *`;
  }
  if (token.length < 8) return 'a token is shorter than 8 characters';
  const tokenHash = createHash('sha256').update(token).digest('hex');
  return { identity: identity ?? `${role}-${tokenHash.slice(0, 8)}`, tokenHash, ...(scopes ? { scopes } : {}) };
}

const port = portVariable;

const configSchema = z
  .object({
    DATABASE_URL: sharedEnvironment.DATABASE_URL,
    DATABASE_DIRECT_URL: sharedEnvironment.DATABASE_DIRECT_URL,
    DATABASE_STATEMENT_TIMEOUT_MS: sharedEnvironment.DATABASE_STATEMENT_TIMEOUT_MS,
    REDIS_URL: sharedEnvironment.REDIS_URL,
    REDIS_CLUSTER_NODES: sharedEnvironment.REDIS_CLUSTER_NODES,
    QUEUE_PREFIX: sharedEnvironment.QUEUE_PREFIX,
    EVENTS_HISTORY_MAX: sharedEnvironment.EVENTS_HISTORY_MAX,
    /** Hooks declared as data (YAML or JSON): the registry runs their pre_flight phase; read at start, reloaded on change. */
    HOOKS_FILE: hooksFileVariable,
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
    /** Development live reload: re-register packages under SKILL_PATHS shortly after their files change. */
    SKILL_WATCH: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
    SKILL_WATCH_DEBOUNCE_MS: z.coerce.number().int().min(10).max(60_000).default(300),
    ADMIN_TOKENS: tokenList('admin'),
    AGENT_TOKENS: tokenList('agent'),
    /** Publisher tokens: may publish (and deprecate) skills whose names match their scopes; promotion stays admin. */
    PUBLISHER_TOKENS: tokenList('publisher'),
    LOG_LEVEL: sharedEnvironment.LOG_LEVEL,
    /** Tool adapters (`adapter=url`, comma-separated), so GET /v1/tools and skill views show availability. */
    TOOL_ADAPTERS: checkedList(parseToolAdapters),
    TOOLS_DISABLED: checkedList(parseDisabledTools),
    /** Feature flags this platform enables (seed 001 §3.3): a tool whose adapter requires one not listed shows as disabled. */
    FEATURE_FLAGS: checkedList(parseFeatureFlags),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
    /**
     * How package code that the registry's checks evaluate (schema.ts, handler.ts) is isolated — the same
     * variable as the executor's handlers: `bubblewrap` (default) or the operator's opt-out `none` (plain child processes).
     */
    HANDLER_SANDBOX: z.enum(['bubblewrap', 'none'], { message: "HANDLER_SANDBOX must be 'bubblewrap' or 'none'" }).default('bubblewrap'),
    /** Longest the evaluation of one package's code may take at registration before its sandbox is stopped. */
    PACKAGE_INSPECTION_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(20_000),
    /**
     * Most event streams (an execution's over SSE or gRPC, the platform's, an MCP call's progress) one registry process
     * follows at once; their blocking reads share Redis connections (EVENT_STREAMS_PER_CONNECTION to one).
     */
    EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(100_000).default(1000),
    /**
     * Of those, most one caller (a token's identity; an anonymous caller's address, see callerKey) follows at once, so that one client
     * cannot take every stream from the others.
     */
    EVENT_STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(100_000).default(100),
    /** Followers whose blocking reads share one Redis connection (SharedStreamReads); 1: a connection each. */
    EVENT_STREAMS_PER_CONNECTION: z.coerce.number().int().min(1).max(1000).default(50),
    /** Sandbox processes that inspect the packages of a disk scan at once (default: the number of cores, at most 4). */
    PACKAGE_INSPECTION_PROCESSES: z.coerce
      .number()
      .int()
      .min(1)
      .max(32)
      .default(Math.max(1, Math.min(4, availableParallelism()))),
    /**
     * Where the registry copies a package to inspect its code (each copy removed after its check). Default: a
     * directory under /dev/shm (memory) where that is writable with 1 GiB free, else under the handler sandbox root.
     */
    PACKAGE_INSPECTION_DIR: z.string().min(1).optional(),
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
    /**
     * The reverse proxies whose X-Forwarded-For, -Host and -Proto the registry believes (addresses, CIDR ranges, or
     * loopback / linklocal / uniquelocal; comma-separated); none by default. See trusted-proxies.ts.
     */
    TRUST_PROXY: z
      .string()
      .default('')
      .transform((raw, ctx) => {
        try {
          return parseTrustedProxies(raw);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
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
    /**
     * HTTP time limits (apps/registry/src/http-edge/connection-limits.ts): request headers within
     * HTTP_HEADERS_TIMEOUT_MS, the whole request (body included) within HTTP_REQUEST_TIMEOUT_MS, else 408;
     * an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS.
     */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(120_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Limits of the digital twin: one revision's content, and all content written on one branch. */
    ...TWIN_LIMIT_VARIABLES,
    /**
     * How MCP tools/list shows the catalog: `all` (every exposed tool with its schemas), `progressive` (the
     * discovery and loading tools; a skill's tools once load_skill loaded it), or `auto` (the default):
     * progressive when a connection would see more than 50 tools, else all (docs/mcp.md).
     */
    MCP_TOOL_EXPOSURE: z.enum(['auto', 'all', 'progressive']).default('auto'),
    /** MCP tasks: the longest time to live a task gets (and the one it gets when the client asks none), in ms. */
    MCP_TASK_TTL_MAX_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(24 * 60 * 60 * 1000),
    /**
     * A2A agent cards: a private key (PEM, PKCS#8; EC P-256 → ES256, Ed25519 → EdDSA, RSA → RS256) to sign the
     * cards with (JWS over the JCS-canonical card), and the key id its signatures name; both or neither.
     */
    AGENT_CARD_SIGNING_KEY: z.string().min(1).optional(),
    AGENT_CARD_SIGNING_KEY_ID: z.string().min(1).max(200).optional(),
    /** The registry's public base URL for A2A agent cards (`https://registry.example.com`); default: the request's own. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (the API's tokens do not apply). */
    METRICS_TOKEN: z.string().min(8).optional(),
    /** The built console (apps/console) served at /console; relative to the working directory. */
    CONSOLE_DIR: z.string().min(1).default('dist/console'),
    /** Mounts GET /bench/baseline for bench/search (an in-app baseline); never needed in production. */
    BENCH_BASELINE_ROUTE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((value) => value === 'true'),
  })
  .superRefine((config, ctx) => {
    for (const issue of redisTopologyIssues(config)) ctx.addIssue({ code: 'custom', ...issue });
    // Node refuses a header time limit longer than the whole request's.
    if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must be at most HTTP_REQUEST_TIMEOUT_MS' });
    }
    if ((config.AGENT_CARD_SIGNING_KEY === undefined) !== (config.AGENT_CARD_SIGNING_KEY_ID === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['AGENT_CARD_SIGNING_KEY_ID'],
        message: 'set AGENT_CARD_SIGNING_KEY and AGENT_CARD_SIGNING_KEY_ID together',
      });
    }
    // One token, one role: a token listed twice would act as whichever list is read first.
    const seen = new Map<string, string>();
    for (const variable of ['ADMIN_TOKENS', 'PUBLISHER_TOKENS', 'AGENT_TOKENS'] as const) {
      for (const entry of config[variable]) {
        const earlier = seen.get(entry.tokenHash);
        if (earlier) ctx.addIssue({ code: 'custom', path: [variable], message: `${entry.identity}'s token is also in ${earlier}` });
        seen.set(entry.tokenHash, variable);
      }
    }
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

const DEFAULT_GRPC_PORT = 50051;

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
