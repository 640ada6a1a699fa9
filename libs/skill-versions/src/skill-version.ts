import type {
  SkillFormat,
  SkillScope,
  SkillStatusName,
  StoredPrompt,
  StoredResource,
  StoredRuntime,
  StoredScriptTool,
  StoredWorkflow,
  VersionExposure,
} from '#contracts/index.js';
import type { CompatibilityPolicy, SkillDependency, SkillExample, AdapterToolRef, ValidationIssue } from '#skill-loader/index.js';

/** One row of skill_versions (with its skill's name), as the registry and the executor read it. */
export interface StoredSkillVersion {
  id: string;
  name: string;
  version: string;
  versionKey: [number, number, number, string];
  domain: string;
  agent: string;
  description: string;
  phase: number;
  toolsRequired: AdapterToolRef[];
  inputSchemaRef: string;
  outputSchemaRef: string;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
  timeoutSeconds: number;
  retries: number;
  idempotent: boolean;
  /** Re-asks of a result that fails output validation, within one attempt (seed 001 §2.3). */
  maxRetriesPerGate: number;
  tags: string[];
  examples: SkillExample[];
  readOnly: boolean;
  /** Skills this version calls, each with a semver range. */
  dependsOn: SkillDependency[];
  compatibility: CompatibilityPolicy;
  /** `typescript` (one handler: the fields above are its contract) or `agent-skills` (contracts per tool). */
  format: SkillFormat;
  tools: StoredScriptTool[];
  /** Agent Skills packages: the frontmatter, as the MCP Skills extension and views serve it. */
  agentSkill: AgentSkillFrontmatter | null;
  /** How it is offered as MCP tools: a TypeScript skill's annotations and task support, an Agent Skills package's tool groups. */
  exposure: VersionExposure;
  /** Agent Skills packages: prompt templates (served as MCP prompts `<skill>__<prompt>`). */
  prompts: StoredPrompt[];
  /** Agent Skills packages: static resources (served over MCP resources/list and resources/read). */
  resources: StoredResource[];
  /** Agent Skills packages: workflows of the package's tools, each run as one execution. */
  workflows: StoredWorkflow[];
  /** Agent Skills packages: runtimes with the state the registration probe found. */
  runtimes: StoredRuntime[];
  /** When the runtimes were probed; null when none are declared. */
  runtimesProbedAt: Date | null;
  /** Seed 004's trust scope: where the version came from (search breaks ties by it, admin first). */
  scope: SkillScope;
  packagePath: string;
  contentHash: string;
  validation: ValidationIssue[];
  status: SkillStatusName;
  statusReason: string | null;
  statusChangedAt: Date;
  deprecationReason: string | null;
  deprecationSuccessor: string | null;
  deprecationSunset: Date | null;
  deprecatedAt: Date | null;
  lockVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An Agent Skills package's frontmatter as stored with its version. */
interface AgentSkillFrontmatter {
  /** The Agent Skills (kebab-case) name. */
  name: string;
  license: string | null;
  compatibility: string | null;
  allowed_tools: string[];
  metadata: Record<string, unknown>;
  /** String-to-string projection of `metadata` (libs/agent-skills projectMetadataStrings). */
  metadata_strings: Record<string, string>;
  search_hint: string | null;
  search_aliases: string[];
  layer: string | null;
  instruction_only: boolean;
  version_defaulted: boolean;
  /** `metadata.dcc-mcp.dcc` (seed 004's default "python"); absent in rows stored before it was read. */
  dcc?: string;
  /** `metadata.dcc-mcp.products`: further DCCs the dcc search filter matches. */
  products?: string[];
  /** `metadata.dcc-mcp.allow-implicit-invocation` (default true). */
  implicit_invocation?: boolean;
  /** `metadata.dcc-mcp.external-deps` as declared. */
  external_deps?: Record<string, unknown> | null;
}
