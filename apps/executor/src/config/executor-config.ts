import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { checkedList, portVariable, redisTopologyIssues, sharedEnvironment } from '#contracts/index.js';
import { hooksFileVariable } from '#hooks/index.js';
import { parseDisabledTools, parseFeatureFlags, parseToolAdapters } from '#mcp-bridge/index.js';
import { SANDBOX_VARIABLES, withSandboxDefaults } from '#handler-sandbox/index.js';
import { isolationFromEnvironment } from '#script-sandbox/index.js';
import { TWIN_LIMIT_VARIABLES } from '#twin/index.js';

const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const executorConfigSchema = z
  .object({
    DATABASE_URL: sharedEnvironment.DATABASE_URL,
    DATABASE_DIRECT_URL: sharedEnvironment.DATABASE_DIRECT_URL,
    DATABASE_STATEMENT_TIMEOUT_MS: sharedEnvironment.DATABASE_STATEMENT_TIMEOUT_MS,
    REDIS_URL: sharedEnvironment.REDIS_URL,
    REDIS_CLUSTER_NODES: sharedEnvironment.REDIS_CLUSTER_NODES,
    QUEUE_PREFIX: sharedEnvironment.QUEUE_PREFIX,
    EVENTS_HISTORY_MAX: sharedEnvironment.EVENTS_HISTORY_MAX,
    /** Hooks declared as data (YAML or JSON), read and validated at start and reloaded when the file changes. */
    HOOKS_FILE: hooksFileVariable,
    EXECUTOR_CONCURRENCY: positiveInt(1, 256).default(4),
    /** On SIGTERM: how long running executions may take to finish before the process exits. */
    SHUTDOWN_GRACE_SECONDS: positiveInt(0, 3600).default(30),
    /** BullMQ job lock; a worker that dies loses its jobs after this long. */
    LOCK_DURATION_MS: positiveInt(1000, 600_000).default(15_000),
    STALLED_INTERVAL_MS: positiveInt(1000, 600_000).default(10_000),
    /** How often a worker renews the heartbeat of the attempts it runs. */
    HEARTBEAT_MS: positiveInt(100, 60_000).default(1000),
    /** An attempt whose heartbeat is older than this is lost (its worker died) and is taken over; ≥ 2 × HEARTBEAT_MS. */
    LOST_AFTER_MS: positiveInt(200, 600_000).default(3000),
    RECONCILE_INTERVAL_MS: positiveInt(500, 600_000).default(10_000),
    /** How long the outcome of a finished attempt is retried while the database is unavailable. */
    DURABLE_WRITE_MAX_WAIT_MS: positiveInt(0, 3_600_000).default(120_000),
    RETRY_BASE_MS: positiveInt(1, 600_000).default(500),
    RETRY_MAX_MS: positiveInt(1, 3_600_000).default(30_000),
    /** Group commit of attempt starts and finishes: most rows per statement (1 = one statement per write). */
    WRITE_BATCH_MAX: positiveInt(1, 1000).default(64),
    /** ... and the longest a write waits for its statement while others are in flight. */
    WRITE_BATCH_WINDOW_MS: z.coerce.number().int().min(0).max(100).default(2),
    /** How long an execution's 'started' event may wait to be published with its next event (0 = at once). */
    EVENT_HOLD_MS: positiveInt(0, 1000).default(20),
    /**
     * How long a first attempt of a sandboxed TypeScript handler may run before its start is written (0 = always
     * written first). A run that ends within it, having used no channel, writes start and end in one statement;
     * meanwhile the execution reads QUEUED. Only with HANDLER_SANDBOX=bubblewrap and no hook applying to the skill (see ExecutionRunner.deferrable).
     */
    ATTEMPT_START_DEFER_MS: positiveInt(0, 60_000).default(100),
    /**
     * How long a pickup of a job enqueued alongside its row's insert (ExecutionJob.early) waits for the row before it
     * concludes there is none (the insert failed). A row committed even later is found by the queue reconciler.
     */
    EARLY_JOB_ROW_WAIT_MS: positiveInt(0, 600_000).default(10_000),
    /** Where stored packages are materialised (one directory per content hash; survives restarts). */
    PACKAGE_CACHE_DIR: z
      .string()
      .min(1)
      .default(join(tmpdir(), 'skill-registry', 'packages')),
    /** Size bound of that cache; least recently used packages are removed above it. */
    PACKAGE_CACHE_MAX_MB: positiveInt(1, 1_000_000).default(512),
    /**
     * TESTS ONLY: a host directory bound writable into every sandbox at its own path (the e2e fixture
     * skills count attempts in marker files there). It is a hole in the boundary: never set it in production.
     */
    SANDBOX_TEST_WRITABLE_DIR: z.string().startsWith('/').optional(),
    /** The handler sandbox's own variables (HANDLER_SANDBOX, CANCEL_GRACE_MS, SANDBOX_*), with the lib's rules. */
    ...SANDBOX_VARIABLES,
    /**
     * How script tools (Agent Skills) are isolated: `bubblewrap` (default) or `none`, the operator's
     * explicit opt-out (plain child processes). Read by the sandbox library's own rule.
     */
    SCRIPT_SANDBOX: z
      .string()
      .optional()
      .transform((value, context) => {
        try {
          return isolationFromEnvironment({ SCRIPT_SANDBOX: value });
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    /** Limits of the digital twin: one revision's content, and all content written on one branch. */
    ...TWIN_LIMIT_VARIABLES,
    /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
    METRICS_TOKEN: z.string().min(8).optional(),
    /** `adapter=url` pairs, comma-separated, e.g. `spice=http://127.0.0.1:7101/mcp,calculix=http://127.0.0.1:7102/mcp`. */
    TOOL_ADAPTERS: checkedList(parseToolAdapters),
    /** Tool ids the operator switched off: a call answers `{ disabled: true, reason }` without reaching the adapter. */
    TOOLS_DISABLED: checkedList(parseDisabledTools),
    /** Feature flags this platform enables (seed 001 §3.3): a tool whose adapter requires one not listed answers `{ disabled: true, reason }`. */
    FEATURE_FLAGS: checkedList(parseFeatureFlags),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Health endpoint of the executor (GET /healthz, /readyz). */
    EXECUTOR_PORT: portVariable.default(3100),
    LOG_LEVEL: sharedEnvironment.LOG_LEVEL,
  })
  .superRefine((config, ctx) => {
    for (const issue of redisTopologyIssues(config)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .transform((config) => withSandboxDefaults(config, config.EXECUTOR_CONCURRENCY))
  .refine((config) => config.LOST_AFTER_MS >= 2 * config.HEARTBEAT_MS, {
    path: ['LOST_AFTER_MS'],
    message: 'must be at least twice HEARTBEAT_MS (a single late heartbeat must not look like a dead worker)',
  });

export type ExecutorConfig = z.output<typeof executorConfigSchema>;
export const EXECUTOR_CONFIG = Symbol('EXECUTOR_CONFIG');

export class ExecutorConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ExecutorConfigError';
  }
}

export function loadExecutorConfig(env: Record<string, string | undefined> = process.env): ExecutorConfig {
  const parsed = executorConfigSchema.safeParse(env);
  if (!parsed.success) throw new ExecutorConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  return parsed.data;
}
