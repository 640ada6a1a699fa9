import { SKILL_NAME_PATTERN } from '#skill-loader/definition.js';
import { agentSkillsSpelling } from '#skill-loader/skill-md.js';

/** agentskills.io `name`: lowercase letters, digits and single hyphens, not at either end. */
const AGENT_SKILLS_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const AGENT_SKILLS_NAME_MAX_LENGTH = 64;
/** Tool names inside a skill (seed 004: snake_case), the same shape as catalog skill names. */
export const TOOL_NAME_PATTERN = SKILL_NAME_PATTERN;
/** `<registry_name>__<tool_name>`: registry names never contain `__`, so the split is unambiguous. */
export const QUALIFIED_TOOL_NAME_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*__[a-z][a-z0-9_]*$/;

/**
 * The catalog (snake_case) name of an Agent Skills name: hyphens become underscores (`hello-world` →
 * `hello_world`). The one name mapping between the two formats; its inverse is toAgentSkillsName.
 */
export function toRegistryName(agentSkillsName: string): string {
  return agentSkillsName.replace(/-/g, '_');
}

/**
 * The Agent Skills (kebab-case) name of a catalog name: underscores become hyphens (`hello_world` →
 * `hello-world`). Only registry names without doubled or trailing underscores have one (check with isAgentSkillsName).
 */
export function toAgentSkillsName(registryName: string): string {
  return agentSkillsSpelling(registryName);
}

/** True for a valid agentskills.io name. */
export function isAgentSkillsName(name: string): boolean {
  return name.length >= 1 && name.length <= AGENT_SKILLS_NAME_MAX_LENGTH && AGENT_SKILLS_NAME_PATTERN.test(name);
}

/** `<registry_name>__<tool_name>` (seed 004 naming). */
export function qualifiedToolName(registryName: string, toolName: string): string {
  return `${registryName}__${toolName}`;
}

/** What is wrong with `name` as an Agent Skills name that must also map to a catalog name; null when nothing. */
export function agentSkillsNameProblem(name: string): { message: string; hint: string } | null {
  if (name.length === 0 || name.length > AGENT_SKILLS_NAME_MAX_LENGTH) {
    return {
      message: `name must be 1 to ${AGENT_SKILLS_NAME_MAX_LENGTH} characters; found ${name.length}`,
      hint: 'Use a short kebab-case name, e.g. "mesh-tools", and name the directory the same.',
    };
  }
  if (!AGENT_SKILLS_NAME_PATTERN.test(name)) {
    const suggestion = kebabCase(name);
    return {
      message: `name '${name}' is not a valid Agent Skills name: use lowercase letters, digits and single hyphens, not at the start or end`,
      hint: suggestion ? `Use "name: ${suggestion}" and rename the directory to match.` : 'Use a kebab-case name such as "mesh-tools".',
    };
  }
  const registryName = toRegistryName(name);
  if (!SKILL_NAME_PATTERN.test(registryName)) {
    return {
      message: `name '${name}' has no catalog name: '${registryName}' must match ${SKILL_NAME_PATTERN.source} (start with a letter)`,
      hint: `Start the name with a letter, e.g. "name: ${letterFirst(name)}", and rename the directory to match.`,
    };
  }
  return null;
}

/** `3d-tools` → `tools-3d`; `3d` → `skill-3d`. */
function letterFirst(name: string): string {
  const [first, ...rest] = name.split('-');
  return rest.length > 0 && /^[a-z]/.test(rest[0]) ? [...rest, first].join('-') : `skill-${name}`;
}

/** A kebab-case spelling of a name (`Bad_Name` → `bad-name`), '' when nothing usable is left. */
function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
