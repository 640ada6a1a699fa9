import { Injectable } from '@nestjs/common';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { JsonRead } from './conditional-get.js';
import { AdapterToolDirectory } from '../adapter-tools/adapter-tool-directory.js';
import type { ListSkillsQuery } from './skills.dto.js';
import { SkillJsonCache } from './skill-json-cache.js';
import { SkillQueries } from './skill-queries.js';

/**
 * The REST catalog reads as pre-serialised JSON, each with its ETag and deprecation signals: the
 * one place that decides what GET /v1/skills, /v1/skills/{name}, …/versions and …/versions/{version}
 * answer, for the Nest controller and the read fast path alike. Lookups go through SkillQueries,
 * like every other transport's.
 */
@Injectable()
export class SkillReads {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly queries: SkillQueries,
    private readonly json: SkillJsonCache,
    private readonly tools: AdapterToolDirectory,
  ) {}

  /** `key` names the query for the page cache; the read fast path passes the one it remembered with the parsed query. */
  list(query: ListSkillsQuery, key = JSON.stringify(query)): JsonRead {
    return this.json.cachedPage(this.catalog.generation, key, () => {
      const page = this.queries.list({
        domain: query.domain,
        agent: query.agent,
        phase: query.phase,
        status: query.status,
        tags: query.tag,
        q: query.q,
        limit: query.limit,
        cursor: query.cursor,
      });
      return this.json.page(
        page.items.map(({ skill }) => skill),
        page.nextCursor,
      );
    });
  }

  /** The current version; a promise only when it requires tools (their availability is asked each time). */
  current(name: string): JsonRead | Promise<JsonRead> {
    const { skill, current } = this.queries.get(name);
    if (current.toolsRequired.length === 0) return this.json.skill(skill);
    const status = this.tools.statusJsonOf(current.toolsRequired);
    if (typeof status === 'string') return this.json.skillWithTools(skill, status);
    return status.then((known) => this.json.skillWithTools(skill, known));
  }

  versions(name: string): JsonRead {
    return this.json.versionList(this.queries.get(name).skill);
  }

  version(name: string, version: string): JsonRead {
    return this.json.version(this.queries.version(name, version));
  }
}
