import { Injectable } from '@nestjs/common';
import { allowedTransitions } from '#contracts/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import { DependentsExist, InvalidTransition, RequestInvalid, SkillNotFound } from '../problem/domain-errors.js';
import { strandedDependents } from '../catalog/dependency-rules.js';
import { VersionRecorder } from './version-recorder.js';
import type { Principal } from '../auth/principal.js';
import { assertMayPublish } from '../auth/token-authenticator.js';

export interface DeprecateCommand {
  name: string;
  /** The caller: an admin, or a publisher whose scopes cover the name. */
  by: Principal;
  reason: string;
  /** One version; all ACTIVE versions when absent. */
  version?: string;
  /** Skill name (optionally `name@version`) that replaces this one. */
  successor?: string;
  sunset?: Date;
  /** Deprecate even when ACTIVE skills depend on it; they are recorded on the event. */
  force?: boolean;
}

/** ACTIVE → DEPRECATED for one version, or for every ACTIVE version of the skill. */
@Injectable()
export class DeprecateSkill {
  constructor(
    private readonly versions: VersionRecorder,
    private readonly catalog: SkillCatalog,
  ) {}

  async execute(command: DeprecateCommand): Promise<SkillVersionRecord[]> {
    assertMayPublish(command.by, command.name);
    if (!command.reason.trim()) {
      throw new RequestInvalid('A deprecation needs a reason', [{ field: 'reason', message: 'must not be empty' }]);
    }
    if (command.sunset && command.sunset.getTime() <= Date.now()) {
      throw new RequestInvalid('The sunset date must be in the future', [{ field: 'sunset', message: 'must be in the future' }]);
    }
    // Decided on the database's state: another replica's write may not have reached this one's catalog yet.
    await this.catalog.reload(command.name);
    const skill = this.catalog.get(command.name);
    if (!skill) throw new SkillNotFound(command.name);
    if (command.successor) {
      const successorName = command.successor.split('@')[0] as string;
      if (successorName === command.name && !command.successor.includes('@')) {
        throw new RequestInvalid('A skill cannot succeed itself', [{ field: 'successor', message: 'names the deprecated skill' }]);
      }
      if (!this.catalog.get(successorName)) {
        throw new RequestInvalid(`Successor '${command.successor}' is not a known skill`, [
          { field: 'successor', message: `no skill named '${successorName}'` },
        ]);
      }
    }
    const targets = command.version
      ? [command.version]
      : skill.versions.filter((version) => version.status === 'ACTIVE').map((version) => version.version);
    if (targets.length === 0) {
      const current = currentVersion(skill);
      throw new InvalidTransition(
        skill.name,
        current.version,
        current.status,
        'DEPRECATED',
        allowedTransitions(current.status),
        `Skill '${skill.name}' has no ACTIVE version to deprecate (current ${current.version} is ${current.status})`,
      );
    }
    const stranded = strandedDependents(skill, targets, this.catalog.all()).map(
      ({ version, range }) => `${version.name}@${version.version} (${range})`,
    );
    if (stranded.length && !command.force) throw new DependentsExist(skill.name, stranded);
    const deprecatedAt = new Date();
    const results: SkillVersionRecord[] = [];
    for (const version of targets) {
      results.push(
        await this.versions.move({
          name: command.name,
          version,
          to: 'DEPRECATED',
          via: 'deprecation',
          actor: command.by.identity,
          reason: command.reason,
          forced: stranded.length > 0,
          evidence: {
            successor: command.successor ?? null,
            sunset: command.sunset?.toISOString() ?? null,
            ...(stranded.length ? { dependents: stranded } : {}),
          },
          patch: {
            statusReason: command.reason,
            deprecationReason: command.reason,
            deprecationSuccessor: command.successor ?? null,
            deprecationSunset: command.sunset ?? null,
            deprecatedAt,
          },
        }),
      );
    }
    return results;
  }
}
