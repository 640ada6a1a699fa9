import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';
import { currentVersion } from '../catalog/skill-records.js';
import { type JsonRead, jsonRead, strongEtag } from './conditional-get.js';
import { deprecationSignals } from './deprecation-headers.js';
import { presentListItem, presentSkill, presentVersion } from './skill.presenter.js';

/**
 * Serialised JSON of catalog entries (with its ETag and deprecation headers), computed once per
 * catalog record. Records are replaced (never mutated) when a skill changes, so a WeakMap keyed by
 * the record can never serve stale JSON. This keeps the hot read paths at a lookup (or a string
 * concatenation) instead of a JSON.stringify and a hash per request.
 */
const MAX_CACHED_PAGES = 512;

@Injectable()
export class SkillJsonCache {
  private readonly listItems = new WeakMap<SkillRecord, string>();
  private readonly skills = new WeakMap<SkillRecord, JsonRead>();
  private readonly withTools = new WeakMap<SkillRecord, { toolsStatus: string; read: JsonRead }>();
  private readonly versionLists = new WeakMap<SkillRecord, JsonRead>();
  private readonly versions = new WeakMap<SkillVersionRecord, JsonRead>();
  private readonly pages = new LRUCache<string, JsonRead>({ max: MAX_CACHED_PAGES });
  private pagesGeneration = -1;

  listItem(skill: SkillRecord): string {
    let json = this.listItems.get(skill);
    if (json === undefined) {
      json = JSON.stringify(presentListItem(skill, currentVersion(skill)));
      this.listItems.set(skill, json);
    }
    return json;
  }

  /** The skill by its current version (without tools_status), with the current version's deprecation signals. */
  skill(skill: SkillRecord): JsonRead {
    let read = this.skills.get(skill);
    if (read === undefined) {
      const current = currentVersion(skill);
      read = jsonRead(JSON.stringify(presentSkill(skill, current)), deprecationSignals([current]));
      this.skills.set(skill, read);
    }
    return read;
  }

  /**
   * The skill with `tools_status` (its JSON) appended. Tool availability changes by the second, so it
   * is asked on every request; the body and ETag are rebuilt only when the answer differs from the
   * previous one for this record.
   */
  skillWithTools(skill: SkillRecord, toolsStatus: string): JsonRead {
    const remembered = this.withTools.get(skill);
    if (remembered?.toolsStatus === toolsStatus) return remembered.read;
    const cached = this.skill(skill);
    const body = Buffer.concat([cached.body.subarray(0, -1), Buffer.from(`,"tools_status":${toolsStatus}}`)]);
    const read = { body, etag: strongEtag(body), deprecation: cached.deprecation };
    this.withTools.set(skill, { toolsStatus, read });
    return read;
  }

  /** `{ items }` of every version, newest first (no deprecation headers: the list is about no one version). */
  versionList(skill: SkillRecord): JsonRead {
    let read = this.versionLists.get(skill);
    if (read === undefined) {
      read = jsonRead(JSON.stringify({ items: skill.versions.map(presentVersion) }));
      this.versionLists.set(skill, read);
    }
    return read;
  }

  /** One version, with its deprecation signals. */
  version(version: SkillVersionRecord): JsonRead {
    let read = this.versions.get(version);
    if (read === undefined) {
      read = jsonRead(JSON.stringify(presentVersion(version)), deprecationSignals([version]));
      this.versions.set(version, read);
    }
    return read;
  }

  /**
   * A page remembered for repeated identical queries until the catalog changes (`generation`).
   * Bounded: the least recently used go first.
   */
  cachedPage(generation: number, key: string, build: () => string): JsonRead {
    if (generation !== this.pagesGeneration) {
      this.pages.clear();
      this.pagesGeneration = generation;
    }
    let read = this.pages.get(key);
    if (read === undefined) {
      read = jsonRead(build());
      this.pages.set(key, read);
    }
    return read;
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
