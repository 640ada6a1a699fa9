import { z } from 'zod';
import { CLUSTER_URL } from './topology.js';

/**
 * Environment variables shared by the registry and the executor: one definition each, so both
 * processes accept and refuse exactly the same values.
 */
export const sharedEnvironment = {
  DATABASE_URL: z
    .string()
    .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/skill_registry'),
  /**
   * Postgres for the statements that need a session of their own (LISTEN, the migrations' advisory lock,
   * named prepared statements): set it to the server itself when DATABASE_URL is a transaction pooler
   * (PgBouncer). Unset: DATABASE_URL is direct and serves everything.
   */
  DATABASE_DIRECT_URL: z
    .string()
    .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgresql:// URL')
    .optional(),
  /**
   * The longest one statement may take on the services' pooled connections, waiting for locks included, before
   * Postgres cancels it (its statement_timeout); 0: no bound. A request is then answered 503, an executor's write of an
   * outcome retried, and the connection is free again: a statement stuck behind a lock cannot hold the pool for good.
   * Not sent through a transaction pooler (see pooledStatementTimeoutMs).
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** One Redis (`redis://`, `rediss://`), or a Redis Cluster (`redis+cluster://host:port,host:port`, see redisTopologyOf). */
  REDIS_URL: z
    .string()
    .refine(
      (value) => (/^rediss?:\/\//.test(value) && URL.canParse(value)) || CLUSTER_URL.test(value),
      'must be a redis:// URL, or redis+cluster://host:port,… for a Redis Cluster',
    )
    .default('redis://127.0.0.1:6379'),
  /** A Redis Cluster's seed nodes, `host:port,host:port` (instead of a redis+cluster:// REDIS_URL). */
  REDIS_CLUSTER_NODES: z.string().optional(),
  /**
   * Prefix of every Redis key (queue, event streams, channels); registry and executor must agree. On a
   * Redis Cluster it must hold a hash tag, e.g. `{skill-registry}` (see redisTopologyIssues).
   */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]*(\{[A-Za-z0-9_.-]+\})?[A-Za-z0-9_.-]*$/, 'letters, digits, _ . - and at most one {hash tag} only')
    .refine((value) => value.replace(/[{}]/g, '') !== '', 'must not be empty')
    .default('skill-registry'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Entries the platform's event stream (`<QUEUE_PREFIX>:events`, GET /v1/events) keeps, about; older ones are trimmed. */
  EVENTS_HISTORY_MAX: z.coerce.number().int().min(100).max(10_000_000).default(10_000),
};

/** A TCP port (0 = any free port). */
export const portVariable = z.coerce.number().int().min(0).max(65535);

/** A comma-separated list checked by `parse` (which throws with a message naming the bad entry). */
export function checkedList(parse: (raw: string) => unknown) {
  return z
    .string()
    .default('')
    .superRefine((raw, ctx) => {
      try {
        parse(raw);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    });
}
