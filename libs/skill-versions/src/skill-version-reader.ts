import type { StoredSkillVersion } from './skill-version.js';

/** Runs one parameterised SQL statement and gives its rows: a pg pool, a pg client, or a Prisma transaction. */
export type SqlRows = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** Every column of skill_versions, with the skill's name as `skill_name`. */
const SELECT_VERSIONS = `SELECT s.name AS skill_name, v.* FROM skill_versions v JOIN skills s ON s.id = v.skill_id`;

/**
 * The one reader of skill_versions: the registry's catalog (every version at start-up, one skill on a
 * change, one version before a write) and the executor (the version an execution runs, by id) read the
 * table through it, so its columns are mapped once (readSkillVersionRow).
 */
export class SkillVersionReader {
  constructor(private readonly rows: SqlRows) {}

  async all(): Promise<StoredSkillVersion[]> {
    return (await this.rows(SELECT_VERSIONS, [])).map((row) => readSkillVersionRow(row));
  }

  async ofSkill(name: string): Promise<StoredSkillVersion[]> {
    return (await this.rows(`${SELECT_VERSIONS} WHERE s.name = $1`, [name])).map((row) => readSkillVersionRow(row));
  }

  async find(name: string, version: string): Promise<StoredSkillVersion | null> {
    const [row] = await this.rows(`${SELECT_VERSIONS} WHERE s.name = $1 AND v.version = $2`, [name, version]);
    return row ? readSkillVersionRow(row) : null;
  }

  async byId(id: string): Promise<StoredSkillVersion | null> {
    const [row] = await this.rows(`${SELECT_VERSIONS} WHERE v.id = $1::uuid`, [id]);
    return row ? readSkillVersionRow(row) : null;
  }
}

/** A pg pool or client as SqlRows. */
export function pgRows(db: { query(sql: string, params: unknown[]): Promise<{ rows: Record<string, unknown>[] }> }): SqlRows {
  return async (sql, params) => (await db.query(sql, params)).rows;
}

const date = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));
const dateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : date(value));

/**
 * A skill_versions row (snake_case columns, `skill_name` beside them; as pg or Prisma's raw queries give
 * it) as a StoredSkillVersion. JSON columns are taken as stored: the intake wrote them.
 */
export function readSkillVersionRow(row: Record<string, unknown>): StoredSkillVersion {
  return {
    id: row.id as string,
    name: row.skill_name as string,
    version: row.version as string,
    versionKey: [row.version_major as number, row.version_minor as number, row.version_patch as number, row.version_prerelease as string],
    domain: row.domain as string,
    agent: row.agent as string,
    description: row.description as string,
    phase: row.phase as number,
    toolsRequired: row.tools_required as StoredSkillVersion['toolsRequired'],
    inputSchemaRef: row.input_schema_ref as string,
    outputSchemaRef: row.output_schema_ref as string,
    inputSchema: (row.input_schema ?? null) as StoredSkillVersion['inputSchema'],
    outputSchema: (row.output_schema ?? null) as StoredSkillVersion['outputSchema'],
    timeoutSeconds: row.timeout_seconds as number,
    retries: row.retries as number,
    idempotent: row.idempotent as boolean,
    maxRetriesPerGate: (row.max_retries_per_gate ?? 0) as number,
    tags: row.tags as string[],
    examples: row.examples as StoredSkillVersion['examples'],
    readOnly: row.read_only as boolean,
    dependsOn: row.depends_on as StoredSkillVersion['dependsOn'],
    compatibility: row.compatibility as StoredSkillVersion['compatibility'],
    format: row.format as StoredSkillVersion['format'],
    tools: (row.tools ?? []) as StoredSkillVersion['tools'],
    agentSkill: (row.agent_skill ?? null) as StoredSkillVersion['agentSkill'],
    exposure: (row.exposure ?? {}) as StoredSkillVersion['exposure'],
    prompts: (row.prompts ?? []) as StoredSkillVersion['prompts'],
    resources: (row.resources ?? []) as StoredSkillVersion['resources'],
    workflows: (row.workflows ?? []) as StoredSkillVersion['workflows'],
    runtimes: (row.runtimes ?? []) as StoredSkillVersion['runtimes'],
    runtimesProbedAt: dateOrNull(row.runtimes_probed_at),
    scope: (row.scope ?? 'system') as StoredSkillVersion['scope'],
    packagePath: row.package_path as string,
    contentHash: row.content_hash as string,
    validation: row.validation as StoredSkillVersion['validation'],
    status: row.status as StoredSkillVersion['status'],
    statusReason: (row.status_reason ?? null) as string | null,
    statusChangedAt: date(row.status_changed_at),
    deprecationReason: (row.deprecation_reason ?? null) as string | null,
    deprecationSuccessor: (row.deprecation_successor ?? null) as string | null,
    deprecationSunset: dateOrNull(row.deprecation_sunset),
    deprecatedAt: dateOrNull(row.deprecated_at),
    lockVersion: row.lock_version as number,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}
