import { type SkillRecord, type SkillVersionRecord, compareVersionKeys } from './skill-records.js';

/**
 * Counts, per skill, the writes this process put in the catalog and the change notifications it
 * received. A read of the database issued before one of them may have missed it (its snapshot can
 * predate that commit), so a reload compares the count from before its read with the count after and
 * reads again when it moved, instead of putting an older state over a newer one (issue 30).
 */
export class ChangeClock {
  private readonly byName = new Map<string, number>();
  private all = 0;

  tick(name: string): void {
    this.byName.set(name, (this.byName.get(name) ?? 0) + 1);
    this.all++;
  }

  of(name: string): number {
    return this.byName.get(name) ?? 0;
  }

  /** Every tick, of every skill (what a read of the whole catalog compares). */
  get total(): number {
    return this.all;
  }
}

/**
 * What a read overtaken by writes can still be trusted with, merged with the catalog's copy: each
 * version as the newer of its two copies (optimistic-lock values only grow) and every version either
 * copy holds (versions are never deleted, so one missing from the read was written after it).
 */
export function keepNewer(read: SkillRecord | null, cached: SkillRecord | undefined): SkillRecord | null {
  if (!cached) return read;
  if (!read) return cached;
  const byId = new Map<string, SkillVersionRecord>(cached.versions.map((version) => [version.id, version]));
  for (const version of read.versions) {
    const held = byId.get(version.id);
    if (!held || held.lockVersion < version.lockVersion) byId.set(version.id, version);
  }
  const versions = [...byId.values()].sort((a, b) => compareVersionKeys(b.versionKey, a.versionKey));
  return { name: read.name, versions };
}
