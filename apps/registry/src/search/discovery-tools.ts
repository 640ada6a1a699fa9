import { Injectable } from '@nestjs/common';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { SKILL_STATUSES } from '#contracts/index.js';
import { SkillNotFound } from '../problem/domain-errors.js';
import { presentSearchHit } from './search.presenter.js';
import { nextSearchCursor, searchOffset } from './search-reads.js';
import { SkillSearchIndex } from './skill-search-index.js';
import { SkillQueries } from '../skills/skill-queries.js';
import { presentSkill } from '../skills/skill.presenter.js';
import { matches } from '../tool-definitions/exposed-skills.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { invalidArguments, structuredResult } from '../mcp-protocol/mcp-tool-results.js';

/**
 * The discovery tools every connection has next to the skills (in the manner of seed 004):
 * `search_skills` ranks skills exactly as GET /v1/search does, `get_skill_info` answers what
 * GET /v1/skills/{name} answers. Both stay inside the connection's phase/tag/domain/agent filter.
 */

const searchSkillsArguments = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('Words to look for in skill names, tags, domains, agents, descriptions, search hints, tools and required tool ids'),
    dcc: z.string().min(1).max(100).optional().describe('Only skills for this DCC (their dcc or one of their products), e.g. "maya"'),
    domain: z.string().min(1).max(100).optional().describe('Only skills of this engineering domain, e.g. "mechanical"'),
    agent: z.string().min(1).max(100).optional().describe('Only skills owned by this agent'),
    tags: z
      .array(z.string().min(1).max(100))
      .max(20)
      .optional()
      .describe(
        'Only skills carrying every one of these tags; a layer name (domain, infrastructure, thin-harness, example) browses that layer',
      ),
    limit: z.number().int().min(1).max(100).optional().describe('How many results to return (default 10)'),
    cursor: z.string().min(1).max(200).optional().describe('next_cursor of the previous page: the next results of the same ranking'),
  })
  .strict();

const getSkillInfoArguments = z
  .object({ name: z.string().min(1).max(200).describe('The skill name, as tools/list or search_skills show it') })
  .strict();

const deprecation = z
  .looseObject({
    reason: z.string().nullable(),
    since: z.string().nullable(),
    successor: z.string().nullable(),
    sunset: z.string().nullable(),
  })
  .nullable();

const dependency = z.looseObject({ name: z.string(), range: z.string() });

const searchSkillsResult = z.looseObject({
  next_cursor: z.string().nullable(),
  items: z.array(
    z.looseObject({
      name: z.string(),
      version: z.string(),
      score: z.number(),
      status: z.enum(SKILL_STATUSES),
      domain: z.string(),
      agent: z.string(),
      description: z.string(),
      tags: z.array(z.string()),
      matched_fields: z.array(z.string()),
      deprecation,
      tool_count: z.number().int(),
      tool_names: z.array(z.string()),
      dcc: z.string().nullable(),
      layer: z.string().nullable(),
      scope: z.string(),
      implicit_invocation: z.boolean(),
      runtime: z.looseObject({ state: z.enum(['available', 'degraded', 'missing']) }).nullable(),
    }),
  ),
  total: z.number().int().describe('Every skill that matched, not only the ones returned'),
});

const skillInfoResult = z.looseObject({
  name: z.string(),
  version: z.string(),
  status: z.enum(SKILL_STATUSES),
  domain: z.string(),
  agent: z.string(),
  description: z.string(),
  phase: z.number().int(),
  input_schema: z.record(z.string(), z.unknown()).nullable(),
  output_schema: z.record(z.string(), z.unknown()).nullable(),
  timeout_seconds: z.number().int(),
  idempotent: z.boolean(),
  read_only: z.boolean(),
  tags: z.array(z.string()),
  depends_on: z.array(dependency).describe('Skills this one calls, each with a semver range'),
  pending_dependencies: z.array(dependency).describe('Dependencies with no registered version in range yet'),
  deprecation,
  versions: z.array(z.looseObject({ version: z.string(), status: z.enum(SKILL_STATUSES) })),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Record<string, unknown>;
}

const SEARCH_SKILLS = 'search_skills';
const GET_SKILL_INFO = 'get_skill_info';

export const DISCOVERY_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_SKILLS,
    title: 'Search skills',
    description:
      'Ranked keyword search over the skills of this registry (BM25 over name, tags, domain, agent, description, search hints, ' +
      'tools and required tool ids; an exact name comes first; infrastructure and thin-harness skills rank lower and examples ' +
      'only show when asked for). Each hit names its tools and runtime state. ACTIVE and DEPRECATED results are callable ' +
      'tools; REGISTERED ones are not promoted yet.',
    inputSchema: jsonSchema(searchSkillsArguments, 'input') as Tool['inputSchema'],
    outputSchema: jsonSchema(searchSkillsResult, 'output') as Tool['outputSchema'],
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: GET_SKILL_INFO,
    title: 'Get skill info',
    description:
      "Everything the registry knows about one skill's current version: description, input and output JSON Schemas, status, " +
      'deprecation (reason, successor, sunset), timeout, retries, tags, examples and its other versions.',
    inputSchema: jsonSchema(getSkillInfoArguments, 'input') as Tool['inputSchema'],
    outputSchema: jsonSchema(skillInfoResult, 'output') as Tool['outputSchema'],
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
];

export const DISCOVERY_TOOL_NAMES: ReadonlySet<string> = new Set(DISCOVERY_TOOLS.map((tool) => tool.name));

@Injectable()
export class DiscoveryTools {
  constructor(
    private readonly index: SkillSearchIndex,
    private readonly skills: SkillQueries,
  ) {}

  /** Runs a discovery tool; domain errors are left to the caller's mapping. */
  call(name: string, rawArguments: unknown, connection: McpConnection): CallToolResult {
    if (name === SEARCH_SKILLS) {
      const parsed = searchSkillsArguments.safeParse(rawArguments ?? {});
      if (!parsed.success) return invalidArguments(name, parsed.error);
      return structuredResult(this.search(parsed.data, connection));
    }
    const parsed = getSkillInfoArguments.safeParse(rawArguments ?? {});
    if (!parsed.success) return invalidArguments(name, parsed.error);
    return structuredResult(this.info(parsed.data.name, connection));
  }

  private search(args: z.output<typeof searchSkillsArguments>, { filter }: McpConnection) {
    // The connection's filter is fixed; the arguments can only narrow it further.
    const conflicting = (fixed: string | undefined, asked: string | undefined) =>
      fixed !== undefined && asked !== undefined && fixed !== asked;
    if (conflicting(filter.domain, args.domain) || conflicting(filter.agent, args.agent)) return { items: [], total: 0, next_cursor: null };
    const offset = searchOffset(args.cursor);
    const limit = args.limit ?? 10;
    const tags = [...new Set([...(filter.tags ?? []), ...(args.tags ?? [])])];
    const { hits, total } = this.index.search({
      text: args.query,
      dcc: args.dcc,
      domain: filter.domain ?? args.domain,
      agent: filter.agent ?? args.agent,
      phase: filter.phase,
      tags: tags.length > 0 ? tags : undefined,
      limit: offset + limit,
    });
    return { items: hits.slice(offset).map(presentSearchHit), total, next_cursor: nextSearchCursor(offset, limit, total) };
  }

  private info(name: string, { filter }: McpConnection) {
    const { skill, current } = this.skills.get(name);
    // Outside the connection's filter a skill does not exist for this agent.
    if (!matches(current, filter)) throw new SkillNotFound(name);
    return presentSkill(skill, current);
  }
}
