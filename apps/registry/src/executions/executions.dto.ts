import { z } from 'zod';
import { EXECUTION_STATUSES } from '#executions/index.js';
import { ExecutionNotFound, RequestInvalid } from '../problem/domain-errors.js';
import { parseOrThrow } from '../validation.js';
import { isVersionOrRange } from '../catalog/version-resolution.js';

/** OpenAPI description of the execute request body (parsed by parseExecuteBody). */
export const EXECUTE_BODY_SCHEMA = {
  type: 'object',
  required: ['input'],
  additionalProperties: false,
  properties: {
    input: { type: 'object', additionalProperties: true, description: "Input matching the version's input_schema" },
    version: {
      type: 'string',
      description:
        'A version (1.2.3) or a semver range (^1.2, ~0.3.1, >=1 <2) resolved to the highest ACTIVE (else DEPRECATED) version in it; default: the current version',
    },
    session_id: { type: 'string', maxLength: 200, description: 'Agent session the execution belongs to' },
    branch: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9._-]{0,62}$',
      description: 'The digital twin branch the skill works on (default main)',
    },
    tool: {
      type: 'string',
      maxLength: 200,
      description: 'The tool to run, for a skill with several (Agent Skills packages): its name or <skill>__<tool>',
    },
  },
};

const MAX_WAIT_SECONDS = 60;

// Parsed with zod, as every body of the REST edge (validation.ts: parseOrThrow).
const executeBody = z
  .object({
    input: z.record(z.string(), z.unknown(), { message: 'input must be a JSON object' }),
    version: z.string().max(200).refine(isVersionOrRange, 'must be a version (1.2.3) or a semver range (^1.2, ~0.3.1, >=1 <2)').optional(),
    session_id: z.string().min(1).max(200).optional(),
    tool: z.string().min(1).max(200).optional(),
    branch: z.string().min(1).max(200).optional(),
  })
  .strict();
export const parseExecuteBody = (raw: unknown) => {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RequestInvalid('Body must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
  }
  return parseOrThrow(executeBody, raw, 'body');
};

export const executeQuery = z.object({ wait: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).optional() }).strict();
export const parseExecuteQuery = (raw: unknown) => parseOrThrow(executeQuery, raw, 'query');

export const idempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
export const parseIdempotencyKey = (raw: unknown): string | undefined =>
  raw === undefined ? undefined : parseOrThrow(idempotencyKey, raw, 'Idempotency-Key header');

export const listExecutionsQuery = z
  .object({
    skill: z.string().min(1).max(100).optional(),
    status: z.enum(EXECUTION_STATUSES).optional(),
    session_id: z.string().min(1).max(200).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,512}$/, 'must be a next_cursor returned by this API')
      .optional(),
  })
  .strict();
export const parseListExecutionsQuery = (raw: unknown) => parseOrThrow(listExecutionsQuery, raw, 'query');

export const executionIdParam = z.uuid({ message: 'execution ids are UUIDs' });
/** Execution ids are UUIDs; anything else cannot name an execution. */
export function parseExecutionId(raw: string): string {
  const parsed = executionIdParam.safeParse(raw);
  if (!parsed.success) throw new ExecutionNotFound(raw);
  return parsed.data;
}
