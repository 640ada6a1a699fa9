import { z } from 'zod';
import { RequestInvalid } from '../problem/domain-errors.js';
import { parseOrThrow } from '../validation.js';

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const SUCCESSOR = /^[a-z][a-z0-9_]*(@\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?)?$/;

/**
 * The admin bodies (REST /v1/admin and the gRPC admin service check the same rules). Strict: an unknown
 * field, a field named like an Object.prototype member, or null for an optional field is refused — null is
 * not "absent" (a deprecation with `"version": null` once deprecated every version).
 */
export const registerSkillBody = z
  .object({
    path: z.string().min(1, 'must not be empty').max(4096).describe('Package directory, absolute or relative, inside a SKILL_PATHS root'),
  })
  .strict();

export const promoteSkillBody = z
  .object({
    reason: z.string().max(2000).optional().describe('Why; required when force is true'),
    force: z.boolean().optional().describe('Promote even if the evidence fails (recorded as forced)'),
  })
  .strict();

export const deprecateSkillBody = z
  .object({
    reason: z.string().min(1, 'must not be empty').max(2000).describe('Why the skill is deprecated; shown to every caller'),
    version: z.string().regex(SEMVER, 'must be a semantic version').optional().describe('One version; every ACTIVE version when absent'),
    successor: z
      .string()
      .regex(SUCCESSOR, 'must be a skill name, optionally @version')
      .optional()
      .describe('Replacement skill, `name` or `name@version`'),
    sunset: z
      .union([z.iso.datetime({ offset: true }), z.iso.date()], { message: 'must be an ISO 8601 date or time' })
      .optional()
      .describe('When the skill stops working (ISO 8601, in the future)'),
    force: z.boolean().optional().describe('Deprecate even though ACTIVE skills depend on it (the reason is recorded with them)'),
  })
  .strict();

/** Parses an admin body: a JSON object checked by `schema`, else VALIDATION_FAILED naming every field. */
export function parseAdminBody<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  if (raw === undefined) return parseOrThrow(schema, {}, 'body');
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new RequestInvalid('Body must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
  }
  return parseOrThrow(schema, raw, 'body');
}
