import { z } from 'zod';
import { SKILL_STATUSES } from '#contracts/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';

/**
 * Query of GET /v1/skills, parsed with zod like every query and body of the REST edge (about a microsecond on
 * the hottest read path); the OpenAPI description is in skills.controller.ts.
 */
export const listSkillsQuery = z
  .object({
    domain: z.string().min(1).max(100).optional(),
    agent: z.string().min(1).max(100).optional(),
    phase: z.coerce.number().int().min(1).max(3).optional(),
    status: z.enum(SKILL_STATUSES).optional(),
    tag: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .pipe(z.array(z.string().min(1).max(100)).max(20))
      .optional(),
    q: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,512}$/, 'must be a next_cursor returned by this API')
      .optional(),
  })
  .strict();

export type ListSkillsQuery = z.output<typeof listSkillsQuery>;

export function parseListSkillsQuery(raw: unknown): ListSkillsQuery {
  const parsed = listSkillsQuery.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: key, message: `unknown query parameter '${key}'` }))
      : [{ field: issue.path.join('.') || 'query', message: issue.message }],
  );
  throw new RequestInvalid(`Query is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}
