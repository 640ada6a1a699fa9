import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * The loading tools of progressive exposure (seed 004 "On-Demand Discovery" and "Tool Groups"), listed
 * after search_skills and get_skill_info. Terse on purpose: they are in every progressive tools/list.
 */

const skillName = z.string().min(1).max(200).describe('The skill name, as search_skills or list_skills show it');
const groupName = z.string().min(1).max(200).describe('A tool group of the skill');

export const listSkillsArguments = z
  .object({
    status: z.enum(['all', 'loaded', 'unloaded']).optional().describe('Which skills (default all)'),
    cursor: z.string().max(1000).optional().describe('nextCursor of the previous page'),
    limit: z.number().int().min(1).max(200).optional().describe('Skills per page (default 50)'),
  })
  .strict();

export const loadSkillArguments = z
  .object({
    skill_name: skillName,
    groups: z.array(groupName).max(50).optional().describe('Dormant groups to activate as well'),
  })
  .strict();

export const unloadSkillArguments = z.object({ skill_name: skillName }).strict();

export const toolGroupArguments = z.object({ skill_name: skillName, group: groupName }).strict();

export const LIST_SKILLS = 'list_skills';
export const LOAD_SKILL = 'load_skill';
export const UNLOAD_SKILL = 'unload_skill';
export const ACTIVATE_TOOL_GROUP = 'activate_tool_group';
const DEACTIVATE_TOOL_GROUP = 'deactivate_tool_group';

function inputSchema(schema: z.ZodType): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return json as Tool['inputSchema'];
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const LOADING_TOOLS: readonly Tool[] = [
  {
    name: LIST_SKILLS,
    description: 'Skills of this registry with their tool names and whether each is loaded here (paged).',
    inputSchema: inputSchema(listSkillsArguments),
    annotations: READ,
  },
  {
    name: LOAD_SKILL,
    description: "Loads a skill (and the skills it depends on): its tools join tools/list. Answers the tools and a 'toolset'.",
    inputSchema: inputSchema(loadSkillArguments),
    annotations: CHANGE,
  },
  {
    name: UNLOAD_SKILL,
    description: "Removes a loaded skill's tools from tools/list.",
    inputSchema: inputSchema(unloadSkillArguments),
    annotations: CHANGE,
  },
  {
    name: ACTIVATE_TOOL_GROUP,
    description: "Lists a dormant tool group's tools (a __group__ stub), loading its skill if needed.",
    inputSchema: inputSchema(toolGroupArguments),
    annotations: CHANGE,
  },
  {
    name: DEACTIVATE_TOOL_GROUP,
    description: "Hides a tool group's tools again.",
    inputSchema: inputSchema(toolGroupArguments),
    annotations: CHANGE,
  },
];

export const LOADING_TOOL_NAMES: ReadonlySet<string> = new Set(LOADING_TOOLS.map((tool) => tool.name));
