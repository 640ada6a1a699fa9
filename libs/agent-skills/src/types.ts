import type { RuntimeDeclaration, StoredPrompt, StoredResource, StoredWorkflow } from '#contracts/index.js';
import type { ValidationIssue } from '#skill-loader/issues.js';

/** Interpreters a script tool can run with on the registry's executors. */
export type ScriptInterpreter = 'python3' | 'bash' | 'node';

/** A declared example of a script tool: promotion runs its input and compares the output. */
export interface ScriptToolExample {
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  description?: string;
}

/** One MCP tool of an Agent Skills package, backed by a script (or listed without one). */
export interface ScriptTool {
  /** snake_case name inside the skill, e.g. `create_sphere`. */
  name: string;
  /** `<registry_name>__<tool_name>` (seed 004), e.g. `maya_geometry__create_sphere`. */
  qualifiedName: string;
  description: string;
  /** JSON Schema 2020-12; `{ type: 'object' }` when tools.yaml declares none. */
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  timeoutSeconds: number;
  retries: number;
  searchAliases: string[];
  /** Qualified tool names suggested after a success or a failure (invalid entries dropped with a warning). */
  nextTools: { onSuccess: string[]; onFailure: string[] };
  /** MCP ToolAnnotations as declared, with camelCase keys (`readOnlyHint`, `destructiveHint`, ...). */
  annotations: Record<string, unknown>;
  examples: ScriptToolExample[];
  /** Tool group from tools.yaml (`group:`, or the group whose `tools:` lists it), null when ungrouped. */
  group: string | null;
  /** seed 004's `defer-loading` (or `defer_loading`): a discovery-oriented declaration. */
  deferLoading: boolean;
  /** MCP tasks: `task_support` as declared; null for the default (optional above 30 s, else forbidden). */
  taskSupport: 'forbidden' | 'optional' | 'required' | null;
  /** The script backing the tool (package-relative), found by seed 004's lookup order; null when none. */
  scriptFile: string | null;
  /** How to run the tool here; null when it is not executable on this platform (see notExecutableReason). */
  script: { path: string; interpreter: ScriptInterpreter } | null;
  notExecutableReason: string | null;
}

/** A tool group (seed 004): tools an agent activates together; a group not `defaultActive` is dormant after load. */
export interface ToolGroup {
  name: string;
  description: string;
  defaultActive: boolean;
  /** Tool names (inside the skill): the group's `tools:` and every tool naming it in `group:`. */
  tools: string[];
}

/** A dependency on another skill, by its registry name. */
export interface SkillDependency {
  /** Registry (snake_case) name of the skill depended on. */
  name: string;
  /** semver range; `*` when none was written. */
  range: string;
}

/** An Agent Skills package directory as read from disk. */
export interface AgentSkillPackage {
  /** Agent Skills name (kebab-case), equal to the directory name. */
  name: string;
  /** The catalog name (snake_case), see toRegistryName. */
  registryName: string;
  version: string;
  /** True when neither `metadata.dcc-mcp.version` nor `metadata.version` gave the version. */
  versionDefaulted: boolean;
  description: string;
  license: string | null;
  compatibility: string | null;
  allowedTools: string[];
  /** Frontmatter `metadata` as written. */
  metadata: Record<string, unknown>;
  /** String-to-string projection of `metadata`, see projectMetadataStrings. */
  metadataStrings: Record<string, string>;
  tags: string[];
  /** `metadata.dcc-mcp.search-hint`; null when absent (search then falls back to the description). */
  searchHint: string | null;
  searchAliases: string[];
  layer: string | null;
  /** `metadata.dcc-mcp.dcc`, lower case; seed 004's default "python" when not declared. */
  dcc: string;
  /** `metadata.dcc-mcp.products`: further DCCs the `dcc` search filter matches. */
  products: string[];
  /** `metadata.dcc-mcp.allow-implicit-invocation` (default true). */
  implicitInvocation: boolean;
  /** `metadata.dcc-mcp.external-deps` as declared (parsed from its JSON string); null when absent. */
  externalDeps: Record<string, unknown> | null;
  depends: SkillDependency[];
  tools: ScriptTool[];
  /** Tool groups (seed 004 "Tool Groups"), from tools.yaml `groups:` and the groups file. */
  toolGroups: ToolGroup[];
  /** Prompt templates (`metadata.dcc-mcp.prompts`), served as MCP prompts `<skill>__<name>`. */
  prompts: StoredPrompt[];
  /** Static resources (`metadata.dcc-mcp.resources`), served over MCP resources/list and resources/read. */
  resources: StoredResource[];
  /** Workflows (`metadata.dcc-mcp.workflows`): chains of this package's tools, each run as one execution. */
  workflows: StoredWorkflow[];
  /** Runtimes to probe (`metadata.dcc-mcp.runtimes`); registration probes them. */
  runtimes: RuntimeDeclaration[];
  /** No tools: the package is instructions, references, assets and scripts for the agent to read. */
  instructionOnly: boolean;
  /** Every file of the package (relative, POSIX separators, sorted; dotfiles, node_modules and dist left out). */
  files: string[];
  /** Markdown files of the sibling `metadata/` folder (e.g. `metadata/depends.md`). */
  metadataFiles: string[];
  /** SKILL.md after its frontmatter. */
  body: string;
}

/** Result of loadAgentSkillPackage. */
export interface AgentSkillLoadResult {
  /**
   * The package, best effort when `valid` is false (fields that broke their rule hold what was written or a
   * default); null only when SKILL.md or its frontmatter could not be read at all.
   */
  package: AgentSkillPackage | null;
  issues: ValidationIssue[];
  /** No issue with severity `error`. */
  valid: boolean;
}
