import { Inject, Injectable } from '@nestjs/common';
import { PgListener, Prisma, PrismaClient } from '#database/index.js';
import type { SkillStatusName } from '#contracts/index.js';
import type { LifecycleEventRecord, NewLifecycleEvent, NewSkillVersion, SkillRecord, SkillVersionRecord } from './skill-records.js';
import { SkillVersionReader, pgRows, readSkillVersionRow } from '#skill-versions/index.js';
import type pg from 'pg';
import { DATABASE_LISTENER, DATABASE_POOL } from '../config/database-pool.js';
import { groupBySkill, isUniqueViolation, toColumns, toRecord } from './skill-version-rows.js';

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
    @Inject(DATABASE_POOL) pool: pg.Pool,
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
   * Inserts a version and its creation event, and announces the change, in ONE statement (discovery
   * of thousands of packages at start-up depends on it); returns null when another process inserted
   * the same version first.
   */
  async createVersion(version: NewSkillVersion, event: NewLifecycleEvent): Promise<SkillVersionRecord | null> {
    const jsonOrNull = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
    try {
      const rows = await this.prisma.$queryRaw<Record<string, unknown>[]>`
        WITH skill AS (
          INSERT INTO skills (id, name, updated_at) VALUES (gen_random_uuid(), ${version.name}, now())
          ON CONFLICT (name) DO UPDATE SET updated_at = skills.updated_at
          RETURNING id
        ), inserted AS (
          INSERT INTO skill_versions (
            id, skill_id, version, version_major, version_minor, version_patch, version_prerelease, domain, agent,
            description, phase, tools_required, input_schema_ref, output_schema_ref, input_schema, output_schema,
            timeout_seconds, retries, idempotent, max_retries_per_gate, tags, examples, read_only, depends_on, compatibility, format, tools, agent_skill, exposure, package_path, content_hash, validation,
            prompts, resources, workflows, runtimes, runtimes_probed_at, scope,
            status, status_reason, status_changed_at, updated_at)
          SELECT gen_random_uuid(), skill.id, ${version.version}, ${version.versionKey[0]}, ${version.versionKey[1]},
            ${version.versionKey[2]}, ${version.versionKey[3]}, ${version.domain}, ${version.agent}, ${version.description},
            ${version.phase}, ${JSON.stringify(version.toolsRequired)}::jsonb, ${version.inputSchemaRef}, ${version.outputSchemaRef},
            ${jsonOrNull(version.inputSchema)}::jsonb, ${jsonOrNull(version.outputSchema)}::jsonb, ${version.timeoutSeconds},
            ${version.retries}, ${version.idempotent}, ${version.maxRetriesPerGate}, ${version.tags}::text[], ${JSON.stringify(version.examples)}::jsonb,
            ${version.readOnly}, ${JSON.stringify(version.dependsOn)}::jsonb, ${version.compatibility}, ${version.format},
            ${JSON.stringify(version.tools)}::jsonb, ${jsonOrNull(version.agentSkill)}::jsonb, ${JSON.stringify(version.exposure)}::jsonb, ${version.packagePath}, ${version.contentHash}, ${JSON.stringify(version.validation)}::jsonb,
            ${JSON.stringify(version.prompts ?? [])}::jsonb, ${JSON.stringify(version.resources ?? [])}::jsonb,
            ${JSON.stringify(version.workflows ?? [])}::jsonb, ${JSON.stringify(version.runtimes ?? [])}::jsonb,
            ${version.runtimesProbedAt ?? null}::timestamptz, ${version.scope ?? 'system'},
            ${version.status}::"SkillStatus", ${version.statusReason}, now(), now()
          FROM skill
          RETURNING *
        ), event AS (
          INSERT INTO lifecycle_events (skill_version_id, from_status, to_status, actor, reason, forced, evidence)
          SELECT inserted.id, ${event.from}::"SkillStatus", ${event.to}::"SkillStatus", ${event.actor}, ${event.reason},
            ${event.forced ?? false}, ${JSON.stringify(event.evidence ?? {})}::jsonb
          FROM inserted
          RETURNING id
        )
        SELECT inserted.*,
          pg_notify(${SKILL_CHANGES_CHANNEL}, json_build_object('name', ${version.name}::text, 'versionId', inserted.id, 'lockVersion', inserted.lock_version)::text)::text AS notified
        FROM inserted, event`;
      const row = rows[0];
      return row ? toRecord(readSkillVersionRow({ ...row, skill_name: version.name })) : null;
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
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
