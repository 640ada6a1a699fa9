import type { SkillFormat, SkillStatusName, StoredTool } from '#contracts/index.js';
import type { CompatibilityPolicy, SkillDependency, SkillExample, ToolRef, ValidationIssue } from '#skill-loader/index.js';

/** One stored skill version, as the registry's rules and presenters see it. */
export interface SkillVersionRecord {
  id: string;
  name: string;
  version: string;
  versionKey: [number, number, number, string];
  domain: string;
  agent: string;
  description: string;
  phase: number;
  toolsRequired: ToolRef[];
  inputSchemaRef: string;
  outputSchemaRef: string;
  inputSchema: Record<string, unknown> | null;
  outputSchema: Record<string, unknown> | null;
  timeoutSeconds: number;
  retries: number;
  idempotent: boolean;
  tags: string[];
  examples: SkillExample[];
  readOnly: boolean;
  /** Skills this version calls, each with a semver range. */
  dependsOn: SkillDependency[];
  /** Derived by the catalog: dependencies no registered version satisfies yet (empty outside it). */
  pendingDependencies: SkillDependency[];
  compatibility: CompatibilityPolicy;
  /** `typescript` (one handler: the fields above are its contract) or `agent-skills` (contracts per tool). */
  format: SkillFormat;
  tools: StoredTool[];
  /** Agent Skills packages: the frontmatter, as the MCP Skills extension and views serve it. */
  agentSkill: AgentSkillFrontmatter | null;
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
export interface AgentSkillFrontmatter {
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
}

/** A skill and all its versions, newest semver first. */
export interface SkillRecord {
  name: string;
  versions: SkillVersionRecord[];
}

/** A lifecycle event as stored (append-only). */
export interface LifecycleEventRecord {
  id: bigint;
  version: string;
  from: SkillStatusName | null;
  to: SkillStatusName;
  actor: string;
  reason: string | null;
  forced: boolean;
  evidence: Record<string, unknown>;
  at: Date;
}

/** What a new version row is made of. */
export type NewSkillVersion = Omit<
  SkillVersionRecord,
  | 'id'
  | 'lockVersion'
  | 'createdAt'
  | 'updatedAt'
  | 'statusChangedAt'
  | 'pendingDependencies'
  | 'deprecationReason'
  | 'deprecationSuccessor'
  | 'deprecationSunset'
  | 'deprecatedAt'
>;

/** A lifecycle event to append. */
export interface NewLifecycleEvent {
  from: SkillStatusName | null;
  to: SkillStatusName;
  actor: string;
  reason: string | null;
  forced?: boolean;
  evidence?: Record<string, unknown>;
}

/** Compare two versions by semver precedence (prerelease sorts before its release). */
export function compareVersionKeys(a: SkillVersionRecord['versionKey'], b: SkillVersionRecord['versionKey']): number {
  for (let i = 0; i < 3; i++) {
    const diff = (a[i] as number) - (b[i] as number);
    if (diff !== 0) return diff;
  }
  if (a[3] === b[3]) return 0;
  if (a[3] === '') return 1;
  if (b[3] === '') return -1;
  return a[3] < b[3] ? -1 : 1;
}

/** The version agents get by default: highest ACTIVE/DEPRECATED, else highest live, else highest. */
export function currentVersion(skill: SkillRecord): SkillVersionRecord {
  const executable = skill.versions.find((v) => v.status === 'ACTIVE' || v.status === 'DEPRECATED');
  if (executable) return executable;
  const live = skill.versions.find((v) => v.status !== 'ARCHIVED');
  return live ?? (skill.versions[0] as SkillVersionRecord);
}
