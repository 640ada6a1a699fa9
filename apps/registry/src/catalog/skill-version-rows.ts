import { Prisma } from '#database/index.js';
import type { StoredSkillVersion } from '#skill-versions/index.js';
import type { NewSkillVersion, SkillRecord, SkillVersionRecord } from './skill-records.js';
import { compareVersionKeys } from './skill-records.js';

/** The registry's records from the one reader's rows, and its writes' columns (Prisma's field names). */

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
    ...(version.maxRetriesPerGate !== undefined ? { maxRetriesPerGate: version.maxRetriesPerGate } : {}),
    ...(version.tags !== undefined ? { tags: version.tags } : {}),
    ...(version.examples !== undefined ? { examples: json(version.examples) } : {}),
    ...(version.readOnly !== undefined ? { readOnly: version.readOnly } : {}),
    ...(version.dependsOn !== undefined ? { dependsOn: json(version.dependsOn) } : {}),
    ...(version.compatibility !== undefined ? { compatibility: version.compatibility } : {}),
    ...(version.format !== undefined ? { format: version.format } : {}),
    ...(version.tools !== undefined ? { tools: json(version.tools) } : {}),
    ...(version.agentSkill !== undefined ? { agentSkill: json(version.agentSkill) } : {}),
    ...(version.exposure !== undefined ? { exposure: json(version.exposure) } : {}),
    ...(version.packagePath !== undefined ? { packagePath: version.packagePath } : {}),
    ...(version.contentHash !== undefined ? { contentHash: version.contentHash } : {}),
    ...(version.validation !== undefined ? { validation: json(version.validation) } : {}),
    ...(version.status !== undefined ? { status: version.status } : {}),
    ...(version.statusReason !== undefined ? { statusReason: version.statusReason } : {}),
  };
}

/** A row as the one reader reads it (libs/skill-versions), as the catalog holds it (nothing derived yet). */
export function toRecord(stored: StoredSkillVersion): SkillVersionRecord {
  return { ...stored, pendingDependencies: [] };
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
