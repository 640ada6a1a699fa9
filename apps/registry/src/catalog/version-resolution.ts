import semver from 'semver';
import { RequestInvalid, SkillNotFound } from '../problem/domain-errors.js';
import { type SkillRecord, type SkillVersionRecord, currentVersion } from './skill-records.js';

/** Whether `requested` names one exact version (`1.2.3`, `1.2.3-rc.1`) rather than a range. */
function isExactVersion(requested: string): boolean {
  return semver.valid(requested) !== null && semver.clean(requested) === requested;
}

/** Whether `requested` is an exact version or a semver range (`^1.2`, `~0.3.1`, `>=1 <2`, `1.x`, `*`). */
export function isVersionOrRange(requested: string): boolean {
  return requested.trim() !== '' && (isExactVersion(requested) || semver.validRange(requested) !== null);
}

/**
 * The version a caller gets for `requested` (the one place of this rule, served from the in-process
 * catalog): none → the current version; an exact version → that version; a range → the highest
 * ACTIVE version in it, else the highest DEPRECATED one (pre-releases only when the range names one,
 * as semver says). No match → SkillNotFound listing the versions that exist.
 */
export function resolveVersion(skill: SkillRecord, requested: string | undefined): SkillVersionRecord {
  if (requested === undefined) return currentVersion(skill);
  if (isExactVersion(requested)) {
    const found = skill.versions.find((candidate) => candidate.version === requested);
    if (!found) throw notFound(skill, requested);
    return found;
  }
  const range = requested.trim() === '' ? null : semver.validRange(requested);
  if (range === null) {
    throw new RequestInvalid(`'${requested}' is neither a version nor a semver range`, [
      { field: 'version', message: 'must be a version (1.2.3) or a semver range (^1.2, ~0.3.1, >=1 <2)' },
    ]);
  }
  // skill.versions is highest first, so the first match of a status is the highest.
  const inRange = skill.versions.filter((candidate) => semver.satisfies(candidate.version, range));
  const found =
    inRange.find((candidate) => candidate.status === 'ACTIVE') ?? inRange.find((candidate) => candidate.status === 'DEPRECATED');
  if (!found) throw notFound(skill, requested);
  return found;
}

function notFound(skill: SkillRecord, requested: string): SkillNotFound {
  const existing = skill.versions.map((candidate) => `${candidate.version} (${candidate.status})`);
  return new SkillNotFound(skill.name, requested, existing);
}
