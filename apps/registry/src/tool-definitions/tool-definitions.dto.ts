import { z } from 'zod';
import { parseOrThrow } from '../validation.js';
import { TOOL_DEFINITION_FORMATS } from './tool-definition-formats.js';

/** Query of GET /v1/tool-definitions; the OpenAPI description is in tool-definitions.controller.ts. */
export const toolDefinitionsQuery = z
  .object({
    format: z.enum(TOOL_DEFINITION_FORMATS, { message: `must be one of ${TOOL_DEFINITION_FORMATS.join(', ')}` }),
    domain: z.string().min(1).max(100).optional(),
    agent: z.string().min(1).max(100).optional(),
    phase: z.coerce.number().int().min(1).max(3).optional(),
    tag: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .pipe(z.array(z.string().min(1).max(100)).max(20))
      .optional(),
  })
  .strict();

export type ToolDefinitionsQuery = z.output<typeof toolDefinitionsQuery>;

export function parseToolDefinitionsQuery(raw: unknown): ToolDefinitionsQuery {
  return parseOrThrow(toolDefinitionsQuery, raw, 'query');
}
