import { Inject, Injectable } from '@nestjs/common';
import { PgListener, Prisma, PrismaClient } from '#database/index.js';
import type { SkillStatusName } from '#contracts/index.js';
import type { LifecycleEventRecord, NewLifecycleEvent, NewSkillVersion, SkillRecord, SkillVersionRecord } from './skill-records.js';
import { SkillVersionReader, pgRows, readSkillVersionRow } from '#skill-versions/index.js';
import type pg from 'pg';
import { DATABASE_LISTENER, DATABASE_POOL } from '../config/database-pool.js';
import { groupBySkill, toColumns, toRecord } from './skill-version-rows.js';

/** Postgres channel on which every change to a skill is announced (payload: a JSON SkillChange). */
const SKILL_CHANGES_CHANNEL = 'skill_registry_changes';

export const PRISMA = Symbol('PRISMA');

type Tx = Prisma.TransactionClient;

/** What a change notification says: which version reached which optimistic-lock value. */
export interface SkillChange {
  name: string;
  versionId: string;
  lockVersion: number;
}

/** Changes applied to a version together with a lifecycle move. */
export interface VersionPatch {
  statusReason?: string | null;
  deprecationReason?: string | null;
  deprecationSuccessor?: string | null;
  deprecationSunset?: Date | null;
  deprecatedAt?: Date | null;
  content?: Partial<NewSkillVersion>;
}

/** The only place that reads and writes skills, versions and lifecycle events. */
@Injectable()
export class SkillsRepository {
  private readonly reader: SkillVersionReader;

  constructor(
    @Inject(PRISMA) private readonly prisma: PrismaClient,
    @Inject(DATABASE_POOL) private readonly pool: pg.Pool,
    @Inject(DATABASE_LISTENER) private readonly listener: PgListener,
  ) {
    this.reader = new SkillVersionReader(pgRows(pool));
  }

  async loadAll(): Promise<SkillRecord[]> {
    return groupBySkill((await this.reader.all()).map(toRecord));
  }

  async loadSkill(name: string): Promise<SkillRecord | null> {
    return groupBySkill((await this.reader.ofSkill(name)).map(toRecord))[0] ?? null;
  }

  async findVersion(name: string, version: string): Promise<SkillVersionRecord | null> {
    const found = await this.reader.find(name, version);
    return found ? toRecord(found) : null;
  }

  /**
   * Inserts a version and its creation event, and announces the change, in one statement; null when another
   * process inserted the same version first.
   */
  async createVersion(version: NewSkillVersion, event: NewLifecycleEvent): Promise<SkillVersionRecord | null> {
    return (await this.createVersions([{ version, event }]))[0] ?? null;
  }

  /**
   * Inserts several new versions (no two the same name@version), each with its creation event and change
   * notification, in ONE statement: discovery of a thousand packages at start-up writes them in a few dozen
   * (see VersionRecorder). One result per item, in order: the stored version, or null when that version was
   * stored already (by another process, or one that this replica's catalog lost); the others are inserted.
   */
  async createVersions(items: { version: NewSkillVersion; event: NewLifecycleEvent }[]): Promise<(SkillVersionRecord | null)[]> {
    if (items.length === 0) return [];
    const input = items.map(({ version, event }) => ({
      name: version.name,
      version: version.version,
      version_major: version.versionKey[0],
      version_minor: version.versionKey[1],
      version_patch: version.versionKey[2],
      version_prerelease: version.versionKey[3],
      domain: version.domain,
      agent: version.agent,
      description: version.description,
      phase: version.phase,
      tools_required: version.toolsRequired,
      input_schema_ref: version.inputSchemaRef,
      output_schema_ref: version.outputSchemaRef,
      input_schema: version.inputSchema ?? null,
      output_schema: version.outputSchema ?? null,
      timeout_seconds: version.timeoutSeconds,
      retries: version.retries,
      idempotent: version.idempotent,
      max_retries_per_gate: version.maxRetriesPerGate,
      tags: version.tags,
      examples: version.examples,
      read_only: version.readOnly,
      depends_on: version.dependsOn,
      compatibility: version.compatibility,
      format: version.format,
      tools: version.tools,
      agent_skill: version.agentSkill ?? null,
      exposure: version.exposure,
      package_path: version.packagePath,
      content_hash: version.contentHash,
      validation: version.validation,
      prompts: version.prompts ?? [],
      resources: version.resources ?? [],
      workflows: version.workflows ?? [],
      runtimes: version.runtimes ?? [],
      runtimes_probed_at: version.runtimesProbedAt ?? null,
      scope: version.scope ?? 'system',
      status: version.status,
      status_reason: version.statusReason,
      event_from: event.from,
      event_to: event.to,
      event_actor: event.actor,
      event_reason: event.reason,
      event_forced: event.forced ?? false,
      event_evidence: event.evidence ?? {},
    }));
    // Skills are upserted in name order, so that two such statements lock the rows they share in the same order.
    const { rows } = await this.pool.query(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
           name text, version text, version_major int, version_minor int, version_patch int, version_prerelease text,
           domain text, agent text, description text, phase int, tools_required jsonb, input_schema_ref text,
           output_schema_ref text, input_schema jsonb, output_schema jsonb, timeout_seconds int, retries int,
           idempotent boolean, max_retries_per_gate int, tags text[], examples jsonb, read_only boolean, depends_on jsonb,
           compatibility text, format text, tools jsonb, agent_skill jsonb, exposure jsonb, package_path text,
           content_hash text, validation jsonb, prompts jsonb, resources jsonb, workflows jsonb, runtimes jsonb,
           runtimes_probed_at timestamptz, scope text, status text, status_reason text, event_from text, event_to text,
           event_actor text, event_reason text, event_forced boolean, event_evidence jsonb)
       ), skill AS (
         INSERT INTO skills (id, name, updated_at)
         SELECT gen_random_uuid(), name, now() FROM (SELECT DISTINCT name FROM input) AS names ORDER BY name
         ON CONFLICT (name) DO UPDATE SET updated_at = skills.updated_at
         RETURNING id, name
       ), inserted AS (
         INSERT INTO skill_versions (
           id, skill_id, version, version_major, version_minor, version_patch, version_prerelease, domain, agent,
           description, phase, tools_required, input_schema_ref, output_schema_ref, input_schema, output_schema,
           timeout_seconds, retries, idempotent, max_retries_per_gate, tags, examples, read_only, depends_on, compatibility,
           format, tools, agent_skill, exposure, package_path, content_hash, validation, prompts, resources, workflows,
           runtimes, runtimes_probed_at, scope, status, status_reason, status_changed_at, updated_at)
         SELECT gen_random_uuid(), skill.id, i.version, i.version_major, i.version_minor, i.version_patch, i.version_prerelease,
           i.domain, i.agent, i.description, i.phase, i.tools_required, i.input_schema_ref, i.output_schema_ref,
           i.input_schema, i.output_schema, i.timeout_seconds, i.retries, i.idempotent, i.max_retries_per_gate, i.tags,
           i.examples, i.read_only, i.depends_on, i.compatibility, i.format, i.tools, i.agent_skill, i.exposure,
           i.package_path, i.content_hash, i.validation, i.prompts, i.resources, i.workflows, i.runtimes,
           i.runtimes_probed_at, i.scope, i.status::"SkillStatus", i.status_reason, now(), now()
         FROM input AS i JOIN skill ON skill.name = i.name
         ON CONFLICT DO NOTHING
         RETURNING *
       ), event AS (
         INSERT INTO lifecycle_events (skill_version_id, from_status, to_status, actor, reason, forced, evidence)
         SELECT inserted.id, i.event_from::"SkillStatus", i.event_to::"SkillStatus", i.event_actor, i.event_reason,
           i.event_forced, i.event_evidence
         FROM inserted JOIN skill ON skill.id = inserted.skill_id JOIN input AS i ON i.name = skill.name AND i.version = inserted.version
       )
       SELECT inserted.*, skill.name AS skill_name,
         pg_notify($2, json_build_object('name', skill.name, 'versionId', inserted.id, 'lockVersion', inserted.lock_version)::text)::text AS notified
       FROM inserted JOIN skill ON skill.id = inserted.skill_id`,
      [JSON.stringify(input), SKILL_CHANGES_CHANNEL],
    );
    const created = new Map(
      rows.map((row) => [`${row.skill_name as string}@${row.version as string}`, toRecord(readSkillVersionRow(row))]),
    );
    return items.map(({ version }) => created.get(`${version.name}@${version.version}`) ?? null);
  }

  /**
   * Applies a lifecycle move (or a content update when `event` is null) if the version is still at
   * `expectedLockVersion`; returns the updated record, or null when someone else changed it first.
   */
  async updateVersion(
    current: SkillVersionRecord,
    to: SkillStatusName,
    patch: VersionPatch,
    event: NewLifecycleEvent | null,
  ): Promise<SkillVersionRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      const statusChanged = to !== current.status;
      const { count } = await tx.skillVersion.updateMany({
        where: { id: current.id, lockVersion: current.lockVersion },
        data: {
          ...(patch.content ? toColumns(patch.content) : {}),
          status: to,
          ...(statusChanged ? { statusChangedAt: new Date() } : {}),
          ...('statusReason' in patch ? { statusReason: patch.statusReason } : {}),
          ...('deprecationReason' in patch ? { deprecationReason: patch.deprecationReason } : {}),
          ...('deprecationSuccessor' in patch ? { deprecationSuccessor: patch.deprecationSuccessor } : {}),
          ...('deprecationSunset' in patch ? { deprecationSunset: patch.deprecationSunset } : {}),
          ...('deprecatedAt' in patch ? { deprecatedAt: patch.deprecatedAt } : {}),
          lockVersion: { increment: 1 },
        },
      });
      if (count === 0) return null;
      if (event) await appendEvent(tx, current.id, event);
      await notify(tx, { name: current.name, versionId: current.id, lockVersion: current.lockVersion + 1 });
      // Read back in the transaction through the one reader (Prisma's raw query on the same connection).
      const written = await new SkillVersionReader((sql, params) => tx.$queryRawUnsafe(sql, ...params)).byId(current.id);
      if (!written) throw new Error(`skill version ${current.id} vanished inside its own update`);
      return toRecord(written);
    });
  }

  async history(name: string): Promise<LifecycleEventRecord[]> {
    const rows = await this.prisma.lifecycleEvent.findMany({
      where: { skillVersion: { skill: { name } } },
      include: { skillVersion: { select: { version: true } } },
      orderBy: { id: 'asc' },
    });
    return rows.map((row) => ({
      id: row.id,
      version: row.skillVersion.version,
      from: row.fromStatus,
      to: row.toStatus,
      actor: row.actor,
      reason: row.reason,
      forced: row.forced,
      evidence: (row.evidence ?? {}) as Record<string, unknown>,
      at: row.at,
    }));
  }

  /** Calls `onChange(name)` for every change announced by any replica; reconnects if the link drops. */
  async listenForChanges(onChange: (change: SkillChange) => void, onReconnect: () => void): Promise<void> {
    await this.listener.listen(
      SKILL_CHANGES_CHANNEL,
      (payload) => {
        const change = parseChange(payload);
        if (change) onChange(change);
      },
      onReconnect,
    );
  }
}

async function appendEvent(tx: Tx, skillVersionId: string, event: NewLifecycleEvent): Promise<void> {
  await tx.lifecycleEvent.create({
    data: {
      skillVersionId,
      fromStatus: event.from,
      toStatus: event.to,
      actor: event.actor,
      reason: event.reason,
      forced: event.forced ?? false,
      evidence: (event.evidence ?? {}) as Prisma.InputJsonValue,
    },
  });
}

async function notify(tx: Tx, change: SkillChange): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${SKILL_CHANGES_CHANNEL}, ${JSON.stringify(change)})`;
}

function parseChange(payload: string): SkillChange | null {
  try {
    const change = JSON.parse(payload) as Partial<SkillChange>;
    if (typeof change.name !== 'string') return null;
    return { name: change.name, versionId: String(change.versionId ?? ''), lockVersion: Number(change.lockVersion ?? -1) };
  } catch {
    return null;
  }
}
