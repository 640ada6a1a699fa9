import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import type { StoredToolGroup } from '#contracts/index.js';
import type { ExposedSkill } from '../tool-definitions/exposed-skills.js';
import { DEFERRED_HINT_META_KEY } from '../tool-definitions/tool-definition-formats.js';

/** One exposed skill and its tools, as progressive exposure loads them. */
export interface SkillTools {
  name: string;
  /** One of its tools, for the version's facts (version, description, status). */
  version: ExposedSkill;
  tools: ExposedSkill[];
  /** Its tool groups that hold at least one exposed tool. */
  groups: StoredToolGroup[];
}

const SKILL_STUB = '__skill__';
const GROUP_STUB = '__group__';
const STUB_INPUT = { type: 'object' } as Tool['inputSchema'];

/** seed 004: a one-line stand-in for an unloaded skill (no schemas), `__skill__<name>`. */
export function skillStub(skill: SkillTools): Tool {
  const count = skill.tools.length;
  return {
    name: `${SKILL_STUB}${skill.name}`,
    description: `${firstLine(skill.version.description)} (${count} tool${count === 1 ? '' : 's'}; load_skill to use)`,
    inputSchema: STUB_INPUT,
    _meta: { [DEFERRED_HINT_META_KEY]: true },
  };
}

/** seed 004: a dormant group of a loaded skill, `__group__<skill>__<group>`. */
export function groupStub(skill: SkillTools, group: StoredToolGroup): Tool {
  return {
    name: `${GROUP_STUB}${skill.name}__${group.name}`,
    description: `${firstLine(group.description) || `Tool group ${group.name}`} (${group.tools.length} tools; activate_tool_group to use)`,
    inputSchema: STUB_INPUT,
    _meta: { [DEFERRED_HINT_META_KEY]: true },
  };
}

/** The answer to a call of a stub (seed 004): a tool error saying which tool makes it real; null for another name. */
export function stubCallResult(name: string): CallToolResult | null {
  let hint: string;
  if (name.startsWith(SKILL_STUB)) {
    const skill = name.slice(SKILL_STUB.length);
    hint = `SKILL_NOT_LOADED: skill '${skill}' is not loaded. Call load_skill(skill_name="${skill}") to register its tools.`;
  } else if (name.startsWith(GROUP_STUB)) {
    const rest = name.slice(GROUP_STUB.length);
    const at = rest.lastIndexOf('__');
    const [skill, group] = at > 0 ? [rest.slice(0, at), rest.slice(at + 2)] : [rest, ''];
    hint = `TOOL_GROUP_INACTIVE: group '${group}' of skill '${skill}' is not active. Call activate_tool_group(skill_name="${skill}", group="${group}").`;
  } else {
    return null;
  }
  return { isError: true, content: [{ type: 'text', text: hint }] };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
