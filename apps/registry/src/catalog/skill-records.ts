import type { SkillStatusName } from '#contracts/index.js';
import type { SkillDependency } from '#skill-loader/index.js';
import type { StoredSkillVersion } from '#skill-versions/index.js';

/** One stored skill version, as the registry's rules and presenters see it: the row, and what the catalog derives. */
export interface SkillVersionRecord extends StoredSkillVersion {
  /** Derived by the catalog: dependencies no registered version satisfies yet (empty outside it). */
  pendingDependencies: SkillDependency[];
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

/** Columns a new version may leave to their defaults: none of the sidecars, scope `system` (found on disk). */
type DefaultedColumns = 'prompts' | 'resources' | 'workflows' | 'runtimes' | 'runtimesProbedAt' | 'scope';

/** What a new version row is made of. */
export type NewSkillVersion = Partial<Pick<SkillVersionRecord, DefaultedColumns>> &
  Omit<
    SkillVersionRecord,
    | DefaultedColumns
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
