export { DEFAULT_VERSION, LAYERS } from './dcc-mcp.js';
export { isAgentSkillsPackage } from './detect.js';
export { COMPATIBILITY_MAX_LENGTH, DESCRIPTION_MAX_LENGTH, FRONTMATTER_KEYS, splitSkillMarkdown } from './frontmatter.js';
export { loadAgentSkillPackage } from './loader.js';
export { projectMetadataStrings, VENDOR_NAMESPACES } from './metadata-strings.js';
export {
  AGENT_SKILLS_NAME_PATTERN,
  isAgentSkillsName,
  qualifiedToolName,
  QUALIFIED_TOOL_NAME_PATTERN,
  toAgentSkillsName,
  toRegistryName,
  TOOL_NAME_PATTERN,
} from './names.js';
export { FOREIGN_SCRIPT_TYPES, INTERPRETERS } from './scripts.js';
export { DEFAULT_RETRIES, DEFAULT_TIMEOUT_SECONDS, PERMISSIVE_INPUT_SCHEMA } from './tool-entry.js';
export type {
  AgentSkillLoadResult,
  AgentSkillPackage,
  AgentSkillTool,
  AgentSkillToolExample,
  ScriptInterpreter,
  SkillDependency,
} from './types.js';
export type { IssueCategory, IssueSeverity, ValidationIssue } from '#skill-loader/issues.js';
