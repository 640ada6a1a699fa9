import { z } from 'zod';
import { parseOrThrow } from '../validation.js';
import type { ToolFilter } from '../tool-definitions/exposed-skills.js';

/**
 * Query of the MCP endpoint (`/mcp?phase=1&tag=firmware`): fixes, for the whole connection, which
 * skills the agent sees as tools and finds with search_skills. The OpenAPI description is in
 * mcp.controller.ts.
 */
export const mcpEndpointQuery = z
  .object({
    phase: z.coerce.number().int().min(1).max(3).optional(),
    tag: z
      .union([z.string(), z.array(z.string())])
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .pipe(z.array(z.string().min(1).max(100)).max(20))
      .optional(),
    domain: z.string().min(1).max(100).optional(),
    agent: z.string().min(1).max(100).optional(),
    // The digital twin branch tool calls of this connection work on (default main); checked when a call uses it.
    branch: z.string().min(1).max(100).optional(),
  })
  .strict();

export function parseMcpEndpointQuery(raw: unknown): { filter: ToolFilter; branch?: string } {
  const { phase, tag, domain, agent, branch } = parseOrThrow(mcpEndpointQuery, raw, 'query');
  return { filter: { phase, tags: tag, domain, agent }, branch };
}
