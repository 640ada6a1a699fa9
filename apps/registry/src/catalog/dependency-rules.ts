import semver from 'semver';
import type { SkillDependency } from '#skill-loader/index.js';
import type { SkillRecord, SkillVersionRecord } from './skill-records.js';

/** How the rules look skills up: the in-process catalog's `get`. */
export type SkillLookup = (name: string) => SkillRecord | undefined;

/** Versions that count as present for a dependency: registered and not archived (DRAFTs are broken). */
const PRESENT = new Set(['REGISTERED', 'ACTIVE', 'DEPRECATED']);

const inRange = (version: SkillVersionRecord, range: string) => semver.satisfies(version.version, range);

/** Dependencies no present version satisfies: shown as `pending_dependencies` until one arrives. */
export function pendingDependencies(dependsOn: readonly SkillDependency[], lookup: SkillLookup): SkillDependency[] {
  return dependsOn.filter(
    (dependency) => !(lookup(dependency.name)?.versions ?? []).some((v) => PRESENT.has(v.status) && inRange(v, dependency.range)),
  );
}

/** Dependencies with no ACTIVE version in range: promotion needs none of these. */
export function inactiveDependencies(dependsOn: readonly SkillDependency[], lookup: SkillLookup): SkillDependency[] {
  return dependsOn.filter(
    (dependency) => !(lookup(dependency.name)?.versions ?? []).some((v) => v.status === 'ACTIVE' && inRange(v, dependency.range)),
  );
}

/**
 * A dependency cycle through `name` if it declared `dependsOn`, as the path `name → … → name`, or
 * null. Another skill's edges are the dependencies of all its versions that are not archived, so a
 * cycle through any version that could be resolved is found.
 */
export function findCycle(name: string, dependsOn: readonly SkillDependency[], lookup: SkillLookup): string[] | null {
  const edges = (skill: string): string[] =>
    skill === name
      ? dependsOn.map((dependency) => dependency.name)
      : [
          ...new Set(
            (lookup(skill)?.versions ?? [])
              .filter((version) => version.status !== 'ARCHIVED')
              .flatMap((version) => version.dependsOn.map((dependency) => dependency.name)),
          ),
        ];
  const done = new Set<string>();
  const path: string[] = [name];
  const visit = (skill: string): boolean => {
    for (const next of edges(skill)) {
      if (next === name) {
        path.push(name);
        return true;
      }
      if (done.has(next) || path.includes(next)) continue;
      path.push(next);
      if (visit(next)) return true;
      path.pop();
      done.add(next);
    }
    return false;
  };
  return visit(name) ? path : null;
}

/** A version that depends on a skill, with the range it asks for. */
export interface Dependent {
  version: SkillVersionRecord;
  range: string;
}

/** Every non-archived version of another skill that depends on `name`, in catalog order. */
export function dependentsOf(name: string, skills: Iterable<SkillRecord>): Dependent[] {
  const found: Dependent[] = [];
  for (const skill of skills) {
    if (skill.name === name) continue;
    for (const version of skill.versions) {
      if (version.status === 'ARCHIVED') continue;
      const dependency = version.dependsOn.find((candidate) => candidate.name === name);
      if (dependency) found.push({ version, range: dependency.range });
    }
  }
  return found;
}

/**
 * ACTIVE dependents that would be left without an ACTIVE version in their range once `deprecating`
 * (versions of `skill`) are DEPRECATED: what a deprecation must name, or be forced past.
 */
export function strandedDependents(skill: SkillRecord, deprecating: readonly string[], skills: Iterable<SkillRecord>): Dependent[] {
  const remaining = skill.versions.filter((version) => version.status === 'ACTIVE' && !deprecating.includes(version.version));
  return dependentsOf(skill.name, skills).filter(
    (dependent) =>
      dependent.version.status === 'ACTIVE' &&
      skill.versions.some((version) => deprecating.includes(version.version) && inRange(version, dependent.range)) &&
      !remaining.some((version) => inRange(version, dependent.range)),
  );
}
