import { Injectable } from '@nestjs/common';
import { type SkillStatusName, type TransitionTrigger, allowedTransitions, findTransition } from '#contracts/index.js';
import { GroupCommit } from '#executions/index.js';
import { PackageStore, type PackageFile } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { NewLifecycleEvent, NewSkillVersion, SkillVersionRecord } from '../catalog/skill-records.js';
import { SkillsRepository, type VersionPatch } from '../catalog/skills.repository.js';
import { ConcurrentModification, InvalidTransition, SkillNotFound } from '../problem/domain-errors.js';
import { LifecycleEventsPublisher } from './lifecycle-events.publisher.js';

/** A lifecycle move of one version: to `to` by the trigger `via`, with what the move records. */
export interface MoveRequest {
  name: string;
  version: string;
  to: SkillStatusName;
  via: TransitionTrigger;
  actor: string;
  reason: string | null;
  forced?: boolean;
  evidence?: Record<string, unknown>;
  patch?: VersionPatch;
  /** The package's files when the move changes the version's content: saved before the move is written. */
  files?: PackageFile[];
}

/** A content change decided against the latest stored state: keep it as it is ('done'), give up ('stop'), or write. */
export type ContentChange = (current: SkillVersionRecord) => 'done' | 'stop' | { status: SkillStatusName; patch: VersionPatch };

const MAX_ATTEMPTS = 5;

/** A new version waiting for its batch (see recordVersion). */
interface Creation {
  files: PackageFile[];
  version: NewSkillVersion;
  creation: NewLifecycleEvent;
}

/**
 * New versions written together: up to this many per statement, gathered while another batch is in flight for at
 * most CREATION_WINDOW_MS (a lone one goes at once). A thousand new packages at start-up are a few dozen statements
 * instead of three thousand: on these machines a statement's round trip costs the registry more CPU than its row.
 */
const MAX_CREATIONS_PER_BATCH = 64;
const CREATION_WINDOW_MS = 5;

/**
 * The one write side of skill versions. Discovery (register-skill.ts), publishing (publish-package.ts)
 * and the lifecycle use-cases (promote, deprecate, archive on removal) write through these three
 * methods, and every write ends the same way: the row written goes into this replica's catalog, and a
 * lifecycle event, when there is one, goes out on the Redis stream (best effort, after the commit;
 * the other replicas hear the change through the database's notification).
 */
@Injectable()
export class VersionRecorder {
  private readonly creations = new GroupCommit<Creation, SkillVersionRecord | null>((batch) => this.createBatch(batch), {
    maxBatch: MAX_CREATIONS_PER_BATCH,
    windowMs: CREATION_WINDOW_MS,
    // Two packages claiming one version go in different batches: the later finds the earlier's row.
    keyOf: ({ version }) => `${version.name}@${version.version}`,
    // A batch that fails is written again one version at a time, so that only the version at fault fails.
    isolate: () => true,
  });

  constructor(
    private readonly repository: SkillsRepository,
    private readonly catalog: SkillCatalog,
    private readonly events: LifecycleEventsPublisher,
    private readonly packages: PackageStore,
  ) {}

  /**
   * A new version: its package's files are saved first (content-addressed and idempotent, through the
   * blob store port, which may live outside Postgres), then the version, its creation event and the
   * change notification are one statement. Null when another process created `name@version` first;
   * the catalog then re-reads the skill.
   */
  async recordVersion(files: PackageFile[], version: NewSkillVersion, creation: NewLifecycleEvent): Promise<SkillVersionRecord | null> {
    const created = await this.creations.submit({ files, version, creation });
    if (!created) {
      await this.catalog.reload(version.name);
      return null;
    }
    await this.announce(created, creation);
    return created;
  }

  /**
   * Moves one version through the lifecycle table. Moves on one version serialise on its
   * optimistic-lock column: the loser re-reads and is judged against the new state.
   */
  async move(request: MoveRequest): Promise<SkillVersionRecord> {
    if (request.files) await this.packages.save(request.files);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.repository.findVersion(request.name, request.version);
      if (!current) throw new SkillNotFound(request.name, request.version);
      if (!findTransition(current.status, request.to, request.via)) {
        throw new InvalidTransition(current.name, current.version, current.status, request.to, allowedTransitions(current.status));
      }
      const event: NewLifecycleEvent = {
        from: current.status,
        to: request.to,
        actor: request.actor,
        reason: request.reason,
        forced: request.forced ?? false,
        evidence: request.evidence ?? {},
      };
      const updated = await this.writeAndApply(current.name, () =>
        this.repository.updateVersion(current, request.to, request.patch ?? {}, event),
      );
      if (updated) {
        await this.announce(updated, event);
        return updated;
      }
    }
    throw new ConcurrentModification(request.name, request.version);
  }

  /**
   * Applies `change` to the latest stored state of `version` under its optimistic lock (no lifecycle
   * event), re-reading and retrying when another writer won, a few times: 'done' returns the current
   * state as it is, 'stop' gives up (null), as does losing every time. `files`, when the change gives
   * the version new content, are saved first.
   */
  async update(version: SkillVersionRecord, change: ContentChange, files?: PackageFile[]): Promise<SkillVersionRecord | null> {
    if (files) await this.packages.save(files);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = (await this.repository.findVersion(version.name, version.version)) ?? version;
      const decided = change(current);
      if (decided === 'done') return current;
      if (decided === 'stop') return null;
      const updated = await this.writeAndApply(current.name, () =>
        this.repository.updateVersion(current, decided.status, decided.patch, null),
      );
      if (updated) {
        await this.announce(updated, null);
        return updated;
      }
    }
    return null;
  }

  /** One batch of new versions: their packages' files saved first, then the versions in one statement, into the catalog. */
  private async createBatch(batch: Creation[]): Promise<(SkillVersionRecord | null)[]> {
    await this.packages.saveMany(batch.map((item) => item.files));
    return this.catalog.writingAll(
      batch.map((item) => item.version.name),
      async () => {
        const rows = await this.repository.createVersions(batch.map((item) => ({ version: item.version, event: item.creation })));
        for (const row of rows) if (row) this.catalog.applyVersion(row);
        return rows;
      },
    );
  }

  /** A write of one skill's row whose result goes straight into the catalog (see SkillCatalog.writing). */
  private writeAndApply(name: string, write: () => Promise<SkillVersionRecord | null>): Promise<SkillVersionRecord | null> {
    return this.catalog.writing(name, async () => {
      const row = await write();
      if (row) this.catalog.applyVersion(row);
      return row;
    });
  }

  /** After writeAndApply put the row in place: the lifecycle event, when there is one, goes to the event stream. */
  private async announce(written: SkillVersionRecord, event: NewLifecycleEvent | null): Promise<void> {
    if (event) await this.events.publish(written.name, written.version, event);
  }
}
