import { z } from 'zod';
import { JsonRejected, parseStrictJson } from '#contracts/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { parseOrThrow } from '../validation.js';

/** Requests of the twin's REST routes, parsed with zod (the rules on names and kinds are libs/twin's). */

const cursor = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be a next_cursor returned by this API')
  .optional();
const limit = z.coerce.number().int().min(1).max(100).default(50);

export const branchListQuery = z.object({ cursor, limit, include_promotion: z.enum(['true', 'false']).optional() }).strict();
export const parseBranchListQuery = (raw: unknown) => parseOrThrow(branchListQuery, raw, 'query');

export const CREATE_BRANCH_SCHEMA = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', description: 'The new branch' },
    from: { type: 'string', description: 'The branch to branch from (default main)' },
    at: {
      type: 'string',
      format: 'date-time',
      description: "The moment of `from` the branch starts from (default now); between that branch's creation and now",
    },
  },
};
export const parseCreateBranchBody = (raw: unknown) =>
  parseOrThrow(
    z.object({ name: z.string().max(200), from: z.string().max(200).optional(), at: z.iso.datetime({ offset: true }).optional() }).strict(),
    raw,
    'body',
  );

export const workProductListQuery = z
  .object({
    kind: z.string().max(100).optional(),
    name: z.string().max(200).optional(),
    cursor,
    limit,
    archived: z.enum(['true', 'false']).optional(),
  })
  .strict();
export const parseWorkProductListQuery = (raw: unknown) => parseOrThrow(workProductListQuery, raw, 'query');

/**
 * Metadata sent as text beside raw content (the query's `metadata`, the X-Twin-Metadata header): a
 * JSON object, read as strictly as a JSON body (no duplicate keys, no `__proto__` or
 * `constructor.prototype`, storable text, bounded depth); the problem, or the object.
 */
export function metadataFromText(text: string): { metadata: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = parseStrictJson(text, undefined, 'metadata');
  } catch (error) {
    if (error instanceof JsonRejected) return { problem: `must be a JSON object: ${error.message}` };
    throw error;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { problem: 'must be a JSON object' };
  return { metadata: parsed as Record<string, unknown> };
}

const metadata = z
  .string()
  .max(16 * 1024)
  .optional()
  .transform((text, context) => {
    if (text === undefined) return undefined;
    const read = metadataFromText(text);
    if ('metadata' in read) return read.metadata;
    context.addIssue({ code: 'custom', message: `${read.problem} (URL-encoded)` });
    return z.NEVER;
  });

/** kind and name are required with raw content (twin-upload-request.ts says so); the JSON form carries them in its body. */
export const uploadQuery = z.object({ kind: z.string().max(100).optional(), name: z.string().max(400).optional(), metadata }).strict();
export const parseUploadQuery = (raw: unknown) => parseOrThrow(uploadQuery, raw, 'query');
export const revisionUploadQuery = z.object({ metadata }).strict();
export const parseRevisionUploadQuery = (raw: unknown) => parseOrThrow(revisionUploadQuery, raw, 'query');

export const contentQuery = z.object({ revision: z.coerce.number().int().min(1).max(2_147_483_647).optional() }).strict();
export const parseContentQuery = (raw: unknown) => parseOrThrow(contentQuery, raw, 'query');

export const SET_CONSTRAINTS_SCHEMA = {
  type: 'object',
  required: ['constraints'],
  additionalProperties: false,
  properties: {
    constraints: {
      type: 'array',
      maxItems: 100,
      items: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } }, additionalProperties: true },
      description: 'The complete new set; each constraint is validated against the schema of its kind',
    },
  },
};
export const parseConstraintsBody = (raw: unknown) =>
  parseOrThrow(z.object({ constraints: z.array(z.unknown()).max(100) }).strict(), raw, 'body');

/** Revision numbers in a path. */
export function parseRevisionParam(raw: string): number {
  const revision = Number(raw);
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || revision > 2_147_483_647) {
    throw new RequestInvalid('revision must be a positive integer', [{ field: 'revision', message: 'must be a positive integer' }]);
  }
  return revision;
}
