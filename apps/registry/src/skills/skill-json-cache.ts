import { Injectable } from '@nestjs/common';
import type { SkillRecord } from '../catalog/skill-records.js';
import { currentVersion } from '../catalog/skill-records.js';
import { presentListItem, presentSkill } from './skill.presenter.js';

/**
 * Serialised JSON of catalog entries, computed once per catalog record. Records are replaced (never
 * mutated) when a skill changes, so a WeakMap keyed by the record can never serve stale JSON.
 * This keeps the hot read paths at a string concatenation instead of a JSON.stringify per request.
 */
const MAX_CACHED_PAGES = 512;

@Injectable()
export class SkillJsonCache {
  private readonly listItems = new WeakMap<SkillRecord, string>();
  private readonly skills = new WeakMap<SkillRecord, string>();
  private readonly pages = new Map<string, string>();
  private pagesGeneration = -1;

  listItem(skill: SkillRecord): string {
    let json = this.listItems.get(skill);
    if (json === undefined) {
      json = JSON.stringify(presentListItem(skill, currentVersion(skill)));
      this.listItems.set(skill, json);
    }
    return json;
  }

  skill(skill: SkillRecord): string {
    let json = this.skills.get(skill);
    if (json === undefined) {
      json = JSON.stringify(presentSkill(skill, currentVersion(skill)));
      this.skills.set(skill, json);
    }
    return json;
  }

  /**
   * A page body remembered for repeated identical queries until the catalog changes (`generation`).
   * Bounded: the oldest entries go first.
   */
  cachedPage(generation: number, key: string, build: () => string): string {
    if (generation !== this.pagesGeneration) {
      this.pages.clear();
      this.pagesGeneration = generation;
    }
    let json = this.pages.get(key);
    if (json === undefined) {
      json = build();
      if (this.pages.size >= MAX_CACHED_PAGES) this.pages.delete(this.pages.keys().next().value as string);
      this.pages.set(key, json);
    }
    return json;
  }

  /** `{ items, next_cursor }` assembled from cached items. */
  page(skills: SkillRecord[], nextCursor: string | null): string {
    let json = '{"items":[';
    for (let i = 0; i < skills.length; i++) {
      if (i > 0) json += ',';
      json += this.listItem(skills[i] as SkillRecord);
    }
    return `${json}],"next_cursor":${JSON.stringify(nextCursor)}}`;
  }
}
