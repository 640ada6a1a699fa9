import { z } from 'zod';
import { SKILL_STATUSES } from '#contracts/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';

/**
 * Query of GET /v1/search, parsed with zod like the list query (it sits on a hot read path); the
 * OpenAPI description is in search.controller.ts.
 */
const searchSkillsFields = z
  .object({
    q: z.string().trim().min(1, 'must not be blank').max(200).optional(),
    domain: z.string().min(1).max(100).optional(),
    dcc: z.string().min(1).max(100).optional(),
    agent: z.string().min(1).max(100).optional(),
    phase: z.coerce.number().int().min(1).max(3).optional(),
    status: z.enum(SKILL_STATUSES).optional(),
    tag: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .pipe(z.array(z.string().min(1).max(100)).max(20))
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(10),
    cursor: z.string().optional(),
  })
  .strict();

export const searchSkillsQuery = searchSkillsFields
  // Seed 004 browses by tags alone (search_skills(tags=["infrastructure"])): without q, something must narrow it.
  .refine(
    (query) =>
      query.q !== undefined ||
      query.tag !== undefined ||
      query.dcc !== undefined ||
      query.domain !== undefined ||
      query.agent !== undefined,
    {
      path: ['q'],
      message: 'is required unless tag, dcc, domain or agent narrows the search',
    },
  );

export type SearchSkillsQuery = z.output<typeof searchSkillsQuery>;

/** Query of GET /v1/facets: the catalog view's query and filters (`q` optional: without it, the list's). */
export const catalogFacetsQuery = searchSkillsFields.omit({ limit: true, cursor: true }).strict();

export type CatalogFacetsQuery = z.output<typeof catalogFacetsQuery>;

export function parseSearchSkillsQuery(raw: unknown): SearchSkillsQuery {
  const parsed = searchSkillsQuery.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: key, message: `unknown query parameter '${key}'` }))
      : [{ field: issue.path.join('.') || 'query', message: issue.message }],
  );
  throw new RequestInvalid(`Query is invalid: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`, errors);
}
