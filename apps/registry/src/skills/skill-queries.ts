import { Injectable } from '@nestjs/common';
import { SkillCatalog, type SkillListFilter, type SkillListPage } from '../catalog/skill-catalog.js';
import { type LifecycleEventRecord, type SkillRecord, type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import { SkillsRepository } from '../catalog/skills.repository.js';
import { SkillNotFound } from '../problem/domain-errors.js';

/** Read-side use-cases of the catalog, shared by every transport (REST, gRPC, MCP). */
@Injectable()
export class SkillQueries {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly repository: SkillsRepository,
  ) {}

  list(filter: SkillListFilter): SkillListPage {
    return this.catalog.list(filter);
  }

  /** The skill and its current version. */
  get(name: string): { skill: SkillRecord; current: SkillVersionRecord } {
    const skill = this.catalog.get(name);
    if (!skill) throw new SkillNotFound(name);
    return { skill, current: currentVersion(skill) };
  }

  /** The skill with the version asked for, or its current one when none is named. */
  getAt(name: string, version: string | undefined): { skill: SkillRecord; version: SkillVersionRecord } {
    const { skill, current } = this.get(name);
    return { skill, version: version ? this.version(name, version) : current };
  }

  versions(name: string): SkillVersionRecord[] {
    return this.get(name).skill.versions;
  }

  version(name: string, version: string): SkillVersionRecord {
    this.get(name);
    const found = this.catalog.version(name, version);
    if (!found) throw new SkillNotFound(name, version);
    return found;
  }

  async history(name: string): Promise<LifecycleEventRecord[]> {
    this.get(name);
    return this.repository.history(name);
  }
}
