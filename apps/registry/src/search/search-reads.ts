import { Injectable } from '@nestjs/common';
import { CursorInvalid, decodeCursor, encodeCursor } from '#contracts/index.js';
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
    const offset = searchOffset(query.cursor);
    return this.cache.get(this.catalog.generation, key, () => {
      const { hits, total } = this.index.search({
        text: query.q ?? '',
        domain: query.domain,
        dcc: query.dcc,
        agent: query.agent,
        tags: query.tag,
        status: query.status,
        phase: query.phase,
        limit: offset + query.limit,
      });
      return JSON.stringify({
        items: hits.slice(offset).map(presentSearchHit),
        total,
        next_cursor: nextSearchCursor(offset, query.limit, total),
      });
    });
  }
}

/** Pages of a ranking are counted from its top: the cursor holds the offset of the next page (at most MAX_OFFSET). */
const MAX_OFFSET = 10_000;

/** Where a page of a ranking starts: 0, or the offset a `next_cursor` holds (GET /v1/search, gRPC, MCP search_skills). */
export function searchOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const after = decodeCursor(cursor);
  const offset = /^\d{1,6}$/.test(after) ? Number(after) : NaN;
  if (!(offset > 0 && offset <= MAX_OFFSET)) throw new CursorInvalid('not a search cursor');
  return offset;
}

/** The cursor of the page after the one at `offset`, or null when it was the last. */
export function nextSearchCursor(offset: number, limit: number, total: number): string | null {
  return offset + limit < total && offset + limit <= MAX_OFFSET ? encodeCursor(String(offset + limit)) : null;
}
