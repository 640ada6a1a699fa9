import { z } from 'zod';
import { parseOrThrow } from '../validation.js';

/** A JSON Schema as a document: an object or a boolean schema. */
const schemaDocument = z.union([z.record(z.string(), z.unknown()), z.boolean()], {
  message: 'must be a JSON Schema (an object or a boolean)',
});

const checkBody = z
  .object({ old: schemaDocument, new: schemaDocument, direction: z.enum(['backward', 'forward', 'full']).default('backward') })
  .strict();

/** `POST /v1/compatibility` `{ old, new, direction }`. */
export const parseCheckBody = (raw: unknown) => parseOrThrow(checkBody, raw, 'body');

/** OpenAPI description of the check body. */
export const CHECK_BODY_SCHEMA = {
  type: 'object',
  required: ['old', 'new'],
  additionalProperties: false,
  properties: {
    old: { description: 'The old JSON Schema, in the dialect its $schema names (draft-06, draft-07, 2019-09; 2020-12 when absent)' },
    new: { description: 'The new JSON Schema, in the dialect its $schema names (draft-06, draft-07, 2019-09; 2020-12 when absent)' },
    direction: {
      type: 'string',
      enum: ['backward', 'forward', 'full'],
      default: 'backward',
      description: 'backward: new accepts everything old did; forward: everything new accepts, old did; full: both',
    },
  },
};

export const versionQuery = z.object({ from: z.string().min(1).max(100), to: z.string().min(1).max(100) }).strict();

/** `GET /v1/skills/{name}/compatibility?from=&to=`. */
export const parseVersionQuery = (raw: unknown) => parseOrThrow(versionQuery, raw, 'query');
