export { isAgentSkillsPackage } from './detect.js';
export { splitSkillMarkdown } from './frontmatter.js';
export { loadAgentSkillPackage } from './loader.js';
export { isAgentSkillsName, toAgentSkillsName, toRegistryName } from './names.js';
export type { AgentSkillPackage, ScriptTool } from './types.js';
