import { Prisma, type SkillVersion } from '#database/index.js';
import type { CompatibilityPolicy, SkillDependency, SkillExample, ToolRef, ValidationIssue } from '#skill-loader/index.js';
import type { SkillFormat, StoredTool } from '#contracts/index.js';
import type { AgentSkillFrontmatter, NewSkillVersion, SkillRecord, SkillVersionRecord } from './skill-records.js';
import { compareVersionKeys } from './skill-records.js';

/** Mapping between skill_versions rows (Prisma and raw SQL) and the registry's records. */

export type VersionRow = SkillVersion & { skill: { name: string } };

export function toColumns(version: Partial<NewSkillVersion>) {
  const json = (value: unknown) => (value === null ? Prisma.JsonNull : (value as Prisma.InputJsonValue));
  return {
    ...(version.version !== undefined ? { version: version.version } : {}),
    ...(version.versionKey !== undefined
      ? {
          versionMajor: version.versionKey[0],
          versionMinor: version.versionKey[1],
          versionPatch: version.versionKey[2],
          versionPrerelease: version.versionKey[3],
        }
      : {}),
    ...(version.domain !== undefined ? { domain: version.domain } : {}),
    ...(version.agent !== undefined ? { agent: version.agent } : {}),
    ...(version.description !== undefined ? { description: version.description } : {}),
    ...(version.phase !== undefined ? { phase: version.phase } : {}),
    ...(version.toolsRequired !== undefined ? { toolsRequired: json(version.toolsRequired) } : {}),
    ...(version.inputSchemaRef !== undefined ? { inputSchemaRef: version.inputSchemaRef } : {}),
    ...(version.outputSchemaRef !== undefined ? { outputSchemaRef: version.outputSchemaRef } : {}),
    ...(version.inputSchema !== undefined ? { inputSchema: json(version.inputSchema) } : {}),
    ...(version.outputSchema !== undefined ? { outputSchema: json(version.outputSchema) } : {}),
    ...(version.timeoutSeconds !== undefined ? { timeoutSeconds: version.timeoutSeconds } : {}),
    ...(version.retries !== undefined ? { retries: version.retries } : {}),
    ...(version.idempotent !== undefined ? { idempotent: version.idempotent } : {}),
    ...(version.tags !== undefined ? { tags: version.tags } : {}),
    ...(version.examples !== undefined ? { examples: json(version.examples) } : {}),
    ...(version.readOnly !== undefined ? { readOnly: version.readOnly } : {}),
    ...(version.dependsOn !== undefined ? { dependsOn: json(version.dependsOn) } : {}),
    ...(version.compatibility !== undefined ? { compatibility: version.compatibility } : {}),
    ...(version.format !== undefined ? { format: version.format } : {}),
    ...(version.tools !== undefined ? { tools: json(version.tools) } : {}),
    ...(version.agentSkill !== undefined ? { agentSkill: json(version.agentSkill) } : {}),
    ...(version.packagePath !== undefined ? { packagePath: version.packagePath } : {}),
    ...(version.contentHash !== undefined ? { contentHash: version.contentHash } : {}),
    ...(version.validation !== undefined ? { validation: json(version.validation) } : {}),
    ...(version.status !== undefined ? { status: version.status } : {}),
    ...(version.statusReason !== undefined ? { statusReason: version.statusReason } : {}),
  };
}

/** A skill_versions row as raw SQL returns it (snake_case columns). */
export type RawVersionRow = Record<string, unknown>;

export function rawToRecord(row: RawVersionRow, name: string): SkillVersionRecord {
  return toRecord({
    id: row.id,
    skill: { name },
    skillId: row.skill_id,
    version: row.version,
    versionMajor: row.version_major,
    versionMinor: row.version_minor,
    versionPatch: row.version_patch,
    versionPrerelease: row.version_prerelease,
    domain: row.domain,
    agent: row.agent,
    description: row.description,
    phase: row.phase,
    toolsRequired: row.tools_required,
    inputSchemaRef: row.input_schema_ref,
    outputSchemaRef: row.output_schema_ref,
    inputSchema: row.input_schema,
    outputSchema: row.output_schema,
    timeoutSeconds: row.timeout_seconds,
    retries: row.retries,
    idempotent: row.idempotent,
    tags: row.tags,
    examples: row.examples,
    readOnly: row.read_only,
    dependsOn: row.depends_on,
    compatibility: row.compatibility,
    format: row.format,
    tools: row.tools,
    agentSkill: row.agent_skill,
    packagePath: row.package_path,
    contentHash: row.content_hash,
    validation: row.validation,
    status: row.status,
    statusReason: row.status_reason,
    statusChangedAt: new Date(row.status_changed_at as string),
    deprecationReason: row.deprecation_reason,
    deprecationSuccessor: row.deprecation_successor,
    deprecationSunset: row.deprecation_sunset ? new Date(row.deprecation_sunset as string) : null,
    deprecatedAt: row.deprecated_at ? new Date(row.deprecated_at as string) : null,
    lockVersion: row.lock_version,
    createdAt: new Date(row.created_at as string),
    updatedAt: new Date(row.updated_at as string),
  } as unknown as VersionRow);
}

/** A unique-constraint violation, whether Prisma reports it as such (P2002) or from raw SQL (P2010 / 23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return String((error as Error)?.message ?? '').includes('23505');
  if (error.code === 'P2002') return true;
  const meta = JSON.stringify(error.meta ?? {});
  return meta.includes('23505') || /unique/i.test(error.message);
}

export function toRecord(row: VersionRow): SkillVersionRecord {
  return {
    id: row.id,
    name: row.skill.name,
    version: row.version,
    versionKey: [row.versionMajor, row.versionMinor, row.versionPatch, row.versionPrerelease],
    domain: row.domain,
    agent: row.agent,
    description: row.description,
    phase: row.phase,
    toolsRequired: row.toolsRequired as unknown as ToolRef[],
    inputSchemaRef: row.inputSchemaRef,
    outputSchemaRef: row.outputSchemaRef,
    inputSchema: row.inputSchema as Record<string, unknown> | null,
    outputSchema: row.outputSchema as Record<string, unknown> | null,
    timeoutSeconds: row.timeoutSeconds,
    retries: row.retries,
    idempotent: row.idempotent,
    tags: row.tags,
    examples: row.examples as unknown as SkillExample[],
    readOnly: row.readOnly,
    dependsOn: row.dependsOn as unknown as SkillDependency[],
    pendingDependencies: [],
    compatibility: row.compatibility as CompatibilityPolicy,
    format: row.format as SkillFormat,
    tools: (row.tools as unknown as StoredTool[]) ?? [],
    agentSkill: (row.agentSkill as unknown as AgentSkillFrontmatter | null) ?? null,
    packagePath: row.packagePath,
    contentHash: row.contentHash,
    validation: row.validation as unknown as ValidationIssue[],
    status: row.status,
    statusReason: row.statusReason,
    statusChangedAt: row.statusChangedAt,
    deprecationReason: row.deprecationReason,
    deprecationSuccessor: row.deprecationSuccessor,
    deprecationSunset: row.deprecationSunset,
    deprecatedAt: row.deprecatedAt,
    lockVersion: row.lockVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function groupBySkill(versions: SkillVersionRecord[]): SkillRecord[] {
  const byName = new Map<string, SkillVersionRecord[]>();
  for (const version of versions) {
    const list = byName.get(version.name) ?? [];
    list.push(version);
    byName.set(version.name, list);
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, list]) => ({ name, versions: list.sort((a, b) => compareVersionKeys(b.versionKey, a.versionKey)) }));
}
