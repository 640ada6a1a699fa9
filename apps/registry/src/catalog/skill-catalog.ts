import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { decodeCursor, encodeCursor, type SkillStatusName } from '#contracts/index.js';
import { type SkillRecord, type SkillVersionRecord, compareVersionKeys, currentVersion } from './skill-records.js';
import { pendingDependencies } from './dependency-rules.js';
import { type SkillChange, SkillsRepository } from './skills.repository.js';
import { ChangeClock, keepNewer } from './catalog-freshness.js';

export interface SkillListFilter {
  domain?: string;
  agent?: string;
  /** Skills whose current version needs phase ≤ this. */
  phase?: number;
  status?: SkillStatusName;
  /** All must be present. */
  tags?: string[];
  /** Case-insensitive substring of name or description. */
  q?: string;
  limit: number;
  cursor?: string;
}

/** Reads a reload makes when writes keep overtaking them, before it settles for merging (catalog-freshness.ts). */
const FRESH_READ_ATTEMPTS = 5;

export interface SkillListPage {
  items: { skill: SkillRecord; current: SkillVersionRecord }[];
  nextCursor: string | null;
}

/**
 * The in-process read model of the catalog. Reads never touch Postgres: the catalog is loaded at
 * start and kept fresh by the change notifications every write publishes (from any replica).
 */
@Injectable()
export class SkillCatalog implements OnApplicationShutdown {
  private readonly logger = new Logger(SkillCatalog.name);
  private skills = new Map<string, SkillRecord>();
  private sortedNames: string[] = [];
  private ordered: { skill: SkillRecord; current: SkillVersionRecord }[] = [];
  private changes = 0;
  private pendingReloads = new Map<string, Promise<void>>();
  /** Dependency name → the skills whose versions depend on it (to refresh their pending dependencies). */
  private dependents = new Map<string, Set<string>>();
  private stopped = false;
  /** Writes and notifications seen per skill: a reload they overtook reads again (see refresh). */
  private readonly clock = new ChangeClock();
  /** Writes of this process in flight, per skill, and the notifications of that skill that came in meanwhile (see writing). */
  private readonly localWrites = new Map<string, { count: number; held: SkillChange[] }>();

  constructor(private readonly repository: SkillsRepository) {}

  /** Loads everything and subscribes to changes; call once at start. */
  async start(): Promise<void> {
    await this.repository.listenForChanges(
      (change) => {
        this.clock.tick(change.name);
        // A write of this process puts its own row in place (applyVersion), but its notification (on the
        // LISTEN connection) can arrive before the write's result (on the pool) does: then this reloads
        // the skill too, and that reload must not land after the row with an older state (see refresh).
        const writing = this.localWrites.get(change.name);
        if (writing) writing.held.push(change);
        else if (this.isNewer(change)) void this.reload(change.name);
      },
      () => void this.reloadAll(),
    );
    await this.reloadAll();
  }

  /**
   * Re-reads the whole catalog (at start, and after the change listener reconnected). A read overtaken
   * by a write or notification of any skill is read again, as in refresh; after FRESH_READ_ATTEMPTS,
   * the last read merged with what the catalog holds.
   */
  async reloadAll(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const before = this.clock.total;
      const all = await this.repository.loadAll();
      if (this.stopped) return;
      if (this.clock.total === before) return this.replaceAll(all);
      if (attempt === FRESH_READ_ATTEMPTS) {
        this.logger.debug(`catalog reload overtaken by writes ${attempt} times; merged with the newer copies held`);
        return this.replaceAll(this.mergeWithHeld(all));
      }
    }
  }

  private mergeWithHeld(all: SkillRecord[]): SkillRecord[] {
    const read = new Map(all.map((skill) => [skill.name, skill]));
    const names = [...new Set([...read.keys(), ...this.skills.keys()])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return names.map((name) => keepNewer(read.get(name) ?? null, this.skills.get(name)) as SkillRecord);
  }

  /** `all` in name order, as the repository reads it. */
  private replaceAll(all: SkillRecord[]): void {
    this.skills = new Map(all.map((skill) => [skill.name, skill]));
    this.sortedNames = all.map((skill) => skill.name);
    this.dependents = new Map();
    for (const skill of all) this.indexDependencies(skill.name, undefined, skill);
    for (const skill of all) this.fillPending(skill);
    this.reindex();
  }

  /** Increases on every change to the catalog; lets callers cache derived views. */
  get generation(): number {
    return this.changes;
  }

  /** Puts one skill's fresh record in place (or removes it), keeping the name order, in O(log n) + one splice. */
  private apply(name: string, skill: SkillRecord | null): void {
    this.indexDependencies(name, this.skills.get(name), skill);
    const index = lowerBound(this.sortedNames, name);
    const present = this.sortedNames[index] === name;
    if (skill) {
      this.skills.set(name, skill);
      const entry = { skill, current: currentVersion(skill) };
      if (present) this.ordered[index] = entry;
      else {
        this.sortedNames.splice(index, 0, name);
        this.ordered.splice(index, 0, entry);
      }
    } else if (present) {
      this.skills.delete(name);
      this.sortedNames.splice(index, 1);
      this.ordered.splice(index, 1);
    }
    if (skill) this.fillPending(skill);
    for (const dependent of this.dependents.get(name) ?? []) this.refreshDependent(dependent);
    this.changes++;
  }

  /**
   * A skill that depends on one that just changed: when its pending dependencies change, it gets a
   * new record (records are replaced, never mutated once served, so cached JSON stays right).
   */
  private refreshDependent(name: string): void {
    const skill = this.skills.get(name);
    if (!skill) return;
    const lookup = (other: string) => this.skills.get(other);
    let changed = false;
    const versions = skill.versions.map((version) => {
      const pending = version.dependsOn.length ? pendingDependencies(version.dependsOn, lookup) : [];
      if (JSON.stringify(pending) === JSON.stringify(version.pendingDependencies)) return version;
      changed = true;
      return { ...version, pendingDependencies: pending };
    });
    if (!changed) return;
    const record = { name, versions };
    this.skills.set(name, record);
    const index = lowerBound(this.sortedNames, name);
    if (this.sortedNames[index] === name) this.ordered[index] = { skill: record, current: currentVersion(record) };
  }

  private indexDependencies(name: string, before: SkillRecord | undefined, after: SkillRecord | null): void {
    const names = (skill: SkillRecord | null | undefined) => new Set(skill?.versions.flatMap((v) => v.dependsOn.map((d) => d.name)) ?? []);
    for (const dependency of names(before)) this.dependents.get(dependency)?.delete(name);
    for (const dependency of names(after)) {
      const set = this.dependents.get(dependency) ?? new Set<string>();
      set.add(name);
      this.dependents.set(dependency, set);
    }
  }

  /** Each version's pending dependencies, from what the catalog holds now (derived, never stored); `skill` is a record not served yet. */
  private fillPending(skill: SkillRecord): void {
    const lookup = (name: string) => this.skills.get(name);
    for (const version of skill.versions) {
      version.pendingDependencies = version.dependsOn.length ? pendingDependencies(version.dependsOn, lookup) : [];
    }
  }

  private reindex(): void {
    this.ordered = this.sortedNames.map((name) => {
      const skill = this.skills.get(name) as SkillRecord;
      return { skill, current: currentVersion(skill) };
    });
    this.changes++;
  }

  /** Re-reads one skill from the database; a call while one runs reads again after it. */
  reload(name: string): Promise<void> {
    const pending = this.pendingReloads.get(name);
    if (pending) return pending.then(() => this.reload(name));
    const run = this.refresh(name)
      .catch((error: Error) => this.logger.warn(`could not reload skill ${name}: ${error.message}`))
      .finally(() => this.pendingReloads.delete(name));
    this.pendingReloads.set(name, run);
    return run;
  }

  /**
   * Reads one skill and puts it in place, unless a write or notification of that skill came in while
   * the read was in flight: the read may predate that commit (issue 30: two versions of one skill
   * registered at once, the first one's reload landed after the second's row and dropped it), so it
   * reads again. After FRESH_READ_ATTEMPTS overtaken reads, the last read merged with the catalog's
   * copy. The check and the apply run in one synchronous step, so nothing slips between them.
   */
  private async refresh(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const before = this.clock.of(name);
      const skill = await this.repository.loadSkill(name);
      if (this.stopped) return;
      if (this.clock.of(name) === before) return this.apply(name, skill);
      if (attempt === FRESH_READ_ATTEMPTS) {
        this.logger.debug(`reload of ${name} overtaken by writes ${attempt} times; merged with the newer copies held`);
        return this.apply(name, keepNewer(skill, this.skills.get(name)));
      }
    }
  }

  /**
   * Runs a write of this process to `name`'s versions, which ends by putting the row it wrote in place
   * (applyVersion). A notification of that skill arriving meanwhile — most often the write's own, which
   * the LISTEN connection can deliver before the write's result — waits for it: afterwards only one the
   * catalog does not hold yet (another writer's) reloads the skill, so that a write is not read back.
   */
  async writing<T>(name: string, write: () => Promise<T>): Promise<T> {
    return this.writingAll([name], write);
  }

  /** writing() for a write to several skills at once (a batch of new versions). */
  async writingAll<T>(names: readonly string[], write: () => Promise<T>): Promise<T> {
    const entries = [...new Set(names)].map((name) => {
      const entry = this.localWrites.get(name) ?? { count: 0, held: [] };
      entry.count++;
      this.localWrites.set(name, entry);
      return [name, entry] as const;
    });
    try {
      return await write();
    } finally {
      for (const [name, entry] of entries) {
        if (--entry.count > 0) continue;
        this.localWrites.delete(name);
        if (entry.held.some((change) => this.isNewer(change))) void this.reload(name);
      }
    }
  }

  /** A notified change the catalog does not hold: a version it lacks, or a newer state of one it has. */
  private isNewer(change: SkillChange): boolean {
    const cached = this.skills.get(change.name)?.versions.find((version) => version.id === change.versionId);
    return !cached || cached.lockVersion < change.lockVersion;
  }

  /**
   * Puts a version this process just wrote (the row the write returned) into the catalog without
   * reading it back. An older copy (lower optimistic-lock value) never replaces a newer one.
   */
  applyVersion(version: SkillVersionRecord): void {
    if (this.stopped) return;
    this.clock.tick(version.name);
    const existing = this.skills.get(version.name);
    const cached = existing?.versions.find((candidate) => candidate.id === version.id);
    if (cached && cached.lockVersion > version.lockVersion) return;
    const versions = (existing?.versions ?? []).filter((candidate) => candidate.id !== version.id);
    versions.push(version);
    versions.sort((a, b) => compareVersionKeys(b.versionKey, a.versionKey));
    this.apply(version.name, { name: version.name, versions });
  }

  get(name: string): SkillRecord | undefined {
    return this.skills.get(name);
  }

  /** One version of a skill by its exact version string (the one place of that lookup). */
  version(name: string, version: string): SkillVersionRecord | undefined {
    return this.skills.get(name)?.versions.find((candidate) => candidate.version === version);
  }

  all(): SkillRecord[] {
    return this.ordered.map((entry) => entry.skill);
  }

  get size(): number {
    return this.skills.size;
  }

  /** One page of skills (by their current version), in name order. */
  list(filter: SkillListFilter): SkillListPage {
    const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor);
    const q = filter.q?.toLowerCase();
    const items: SkillListPage['items'] = [];
    let start = 0;
    if (after !== null) {
      start = lowerBound(this.sortedNames, after);
      if (this.sortedNames[start] === after) start++;
    }
    for (let i = start; i < this.ordered.length; i++) {
      const entry = this.ordered[i] as { skill: SkillRecord; current: SkillVersionRecord };
      const { skill, current } = entry;
      if (!matches(skill, current, filter, q)) continue;
      if (items.length === filter.limit) {
        const last = items[items.length - 1] as { skill: SkillRecord };
        return { items, nextCursor: encodeCursor(last.skill.name) };
      }
      items.push(entry);
    }
    return { items, nextCursor: null };
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }
}

function matches(skill: SkillRecord, current: SkillVersionRecord, filter: SkillListFilter, q: string | undefined): boolean {
  if (filter.status === undefined ? current.status === 'ARCHIVED' : current.status !== filter.status) return false;
  if (filter.domain !== undefined && current.domain !== filter.domain) return false;
  if (filter.agent !== undefined && current.agent !== filter.agent) return false;
  if (filter.phase !== undefined && current.phase > filter.phase) return false;
  if (filter.tags && !filter.tags.every((tag) => current.tags.includes(tag))) return false;
  if (q !== undefined && !skill.name.toLowerCase().includes(q) && !current.description.toLowerCase().includes(q)) return false;
  return true;
}

function lowerBound(sorted: string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < key) low = mid + 1;
    else high = mid;
  }
  return low;
}
