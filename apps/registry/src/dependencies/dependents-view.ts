import semver from 'semver';
import type { SkillCatalog } from '../catalog/skill-catalog.js';
import { SkillNotFound } from '../problem/domain-errors.js';
import { dependentsOf } from '../catalog/dependency-rules.js';

/**
 * `GET /v1/skills/{name}/dependents` (and beside the usage report): every non-archived version of
 * another skill that depends on `name`, the range it asks for, and which versions of `name` satisfy it
 * (ACTIVE first), so an admin sees what a deprecation would touch.
 */
export function dependentsView(name: string, catalog: SkillCatalog) {
  const skill = catalog.get(name);
  if (!skill) throw new SkillNotFound(name);
  const executable = skill.versions.filter((version) => version.status === 'ACTIVE' || version.status === 'DEPRECATED');
  return {
    skill: name,
    items: dependentsOf(name, catalog.all()).map(({ version, range }) => ({
      name: version.name,
      version: version.version,
      status: version.status,
      range,
      satisfied_by: executable.filter((candidate) => semver.satisfies(candidate.version, range)).map((candidate) => candidate.version),
    })),
  };
}
