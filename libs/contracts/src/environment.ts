import { z } from 'zod';

/**
 * Environment variables shared by the registry and the executor: one definition each, so both
 * processes accept and refuse exactly the same values.
 */
export const sharedEnvironment = {
  DATABASE_URL: z
    .string()
    .refine((value) => /^postgres(ql)?:\/\//.test(value) && URL.canParse(value), 'must be a postgresql:// URL')
    .default('postgresql://postgres@127.0.0.1:5432/skill_registry'),
  REDIS_URL: z
    .string()
    .refine((value) => /^rediss?:\/\//.test(value) && URL.canParse(value), 'must be a redis:// URL')
    .default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key (queue, event streams, channels); registry and executor must agree. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
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
