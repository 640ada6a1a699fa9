import { Injectable } from '@nestjs/common';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type JsonRead, strongEtag } from '../http-edge/conditional-get.js';
import { ToolDirectory } from '../tools/tool-directory.js';
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
    private readonly tools: ToolDirectory,
  ) {}

  list(query: ListSkillsQuery): JsonRead {
    return this.json.cachedPage(this.catalog.generation, JSON.stringify(query), () => {
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
    const cached = this.json.skill(skill);
    if (current.toolsRequired.length === 0) return cached;
    // Tool availability changes by the second: it is appended to the cached body, never cached itself.
    return this.tools.statusOf(current.toolsRequired).then((status) => {
      const toolsStatus = JSON.stringify(status);
      return {
        body: `${cached.body.slice(0, -1)},"tools_status":${toolsStatus}}`,
        // The body is the cached body (named by its ETag) plus toolsStatus: hashing both is a strong tag of it.
        etag: strongEtag(`${cached.etag}${toolsStatus}`),
        deprecation: cached.deprecation,
      };
    });
  }

  versions(name: string): JsonRead {
    return this.json.versionList(this.queries.get(name).skill);
  }

  version(name: string, version: string): JsonRead {
    return this.json.version(this.queries.version(name, version));
  }
}
