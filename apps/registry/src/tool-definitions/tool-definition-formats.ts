import type { Tool } from '@modelcontextprotocol/server';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import type { ExposedSkill } from './exposed-skills.js';
import { openAiStrictViolations } from './openai-strict.js';

export const TOOL_DEFINITION_FORMATS = ['mcp', 'openai', 'anthropic'] as const;
export type ToolDefinitionFormat = (typeof TOOL_DEFINITION_FORMATS)[number];

/** OpenAI function calling: an entry of the `tools` array of Chat Completions. */
export interface OpenAiFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** Anthropic Messages API: an entry of the `tools` array (client tool). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** `_meta` key under which MCP tools carry the registry's facts about the skill. */
const SKILL_META_KEY = 'skill-registry/skill';
/** seed 004: a discovery-oriented declaration (`defer-loading`) or a stub rides this `_meta` key, never in `annotations`. */
export const DEFERRED_HINT_META_KEY = 'dcc.deferred_hint';

/**
 * What an agent reads about a skill: its description, and for a DEPRECATED version why, what to use
 * instead and when it stops working — agents choose tools by their descriptions, so the notice
 * belongs there.
 */
function agentDescription(version: SkillVersionRecord): string {
  if (version.status !== 'DEPRECATED') return version.description;
  const notice = [`DEPRECATED: ${version.deprecationReason ?? 'no reason given'}`];
  if (version.deprecationSuccessor) notice.push(`use '${version.deprecationSuccessor}' instead`);
  if (version.deprecationSunset) notice.push(`stops working after ${version.deprecationSunset.toISOString()}`);
  return `${version.description} (${notice.join('; ')})`;
}

/**
 * The MCP `Tool` (protocol 2025-06-18 and later): schemas as stored (JSON Schema 2020-12), every hint from
 * the definition (`annotations`, camelCase), task support (`execution.taskSupport`, 2025-11-25).
 */
export function toMcpTool(version: ExposedSkill): Tool {
  const tool: Tool = {
    name: version.name,
    ...(version.annotations.title !== undefined ? { title: version.annotations.title } : {}),
    description: agentDescription(version),
    inputSchema: version.inputSchema as Tool['inputSchema'],
    annotations: { ...version.annotations },
    execution: { taskSupport: version.taskSupport },
    _meta: {
      ...(version.deferLoading ? { [DEFERRED_HINT_META_KEY]: true } : {}),
      [SKILL_META_KEY]: {
        ...(version.toolName ? { skill: version.skillName, tool: version.toolName } : {}),
        version: version.version,
        status: version.status,
        domain: version.domain,
        agent: version.agent,
        phase: version.phase,
        tags: version.tags,
        timeout_seconds: version.timeoutSeconds,
        // 2026-07-28 has no execution.taskSupport (tasks are an extension there): the same fact for its clients.
        task_support: version.taskSupport,
        ...(version.toolGroup ? { group: version.toolGroup } : {}),
      },
    },
  };
  // Structured results are objects; a skill whose output is not one answers with text only.
  if (hasObjectOutput(version)) tool.outputSchema = version.outputSchema as Tool['outputSchema'];
  return tool;
}

/** OpenAI function calling; `strict` only when the stored schema already meets the strict-mode rules. */
export function toOpenAiTool(version: ExposedSkill): OpenAiFunctionTool {
  return {
    type: 'function',
    function: {
      name: version.name,
      description: agentDescription(version),
      parameters: version.inputSchema,
      strict: openAiStrictViolations(version.inputSchema).length === 0,
    },
  };
}

export function toAnthropicTool(version: ExposedSkill): AnthropicTool {
  return { name: version.name, description: agentDescription(version), input_schema: version.inputSchema };
}

export function hasObjectOutput<V extends Pick<SkillVersionRecord, 'outputSchema'>>(
  version: V,
): version is V & { outputSchema: Record<string, unknown> } {
  return version.outputSchema !== null && version.outputSchema.type === 'object';
}
