import { Injectable } from '@nestjs/common';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { JsonRead } from '../skills/conditional-get.js';
import type { SearchSkillsQuery } from './search.dto.js';
import { presentSearchHit } from './search.presenter.js';
import { SearchResponseCache } from './search-response-cache.js';
import { SkillSearchIndex } from './skill-search-index.js';

/** GET /v1/search as pre-serialised JSON with its ETag: the one place for the Nest controller and the read fast path. */
@Injectable()
export class SearchReads {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly index: SkillSearchIndex,
    private readonly cache: SearchResponseCache,
  ) {}

  /** `key` names the query for the response cache; the read fast path passes the one it remembered with the parsed query. */
  search(query: SearchSkillsQuery, key = JSON.stringify(query)): JsonRead {
    return this.cache.get(this.catalog.generation, key, () => {
      const { hits, total } = this.index.search({
        text: query.q,
        domain: query.domain,
        agent: query.agent,
        tags: query.tag,
        status: query.status,
        phase: query.phase,
        limit: query.limit,
      });
      return JSON.stringify({ items: hits.map(presentSearchHit), total });
    });
  }
}
