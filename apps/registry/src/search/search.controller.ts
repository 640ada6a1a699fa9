import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SKILL_STATUSES } from '../../../../libs/contracts/src/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { parseSearchSkillsQuery } from './search.dto.js';
import { presentSearchHit } from './search.presenter.js';
import { SearchResponseCache } from './search-response-cache.js';
import { SkillSearchIndex } from './skill-search-index.js';

@ApiTags('search')
@Controller('v1/search')
export class SearchController {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly index: SkillSearchIndex,
    private readonly cache: SearchResponseCache,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Ranked search over the current version of every skill',
    description:
      'BM25 (k1 1.2, b 0.75) per field, weighted name 5, tags 3, domain 3, agent 3, description 2, required tool ids 2. ' +
      'A skill whose name equals the query (case-insensitive) comes first; then score descending, ACTIVE before DEPRECATED, name. ' +
      'DEPRECATED scores are multiplied by 0.8. Filters restrict the candidates before scoring. DRAFT and ARCHIVED skills only ' +
      'appear when `status` asks for them.',
  })
  @ApiQuery({ name: 'q', required: true, description: 'Search text, 1–200 characters' })
  @ApiQuery({ name: 'domain', required: false, description: 'Only skills of this engineering domain' })
  @ApiQuery({ name: 'agent', required: false, description: 'Only skills owned by this agent' })
  @ApiQuery({ name: 'tag', required: false, type: [String], description: 'Repeatable; every tag must match' })
  @ApiQuery({
    name: 'status',
    required: false,
    enum: SKILL_STATUSES,
    description: 'Only this status (default: every status but DRAFT and ARCHIVED)',
  })
  @ApiQuery({ name: 'phase', required: false, type: Number, description: 'Only skills usable at this phase (phase ≤ n, 1–3)' })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: 'Results to return, 1–100 (default 10); `total` counts all' })
  search(@Query() rawQuery: Record<string, unknown>, @Res({ passthrough: true }) reply: FastifyReply): string {
    const query = parseSearchSkillsQuery(rawQuery);
    reply.type('application/json; charset=utf-8');
    return this.cache.get(this.catalog.generation, JSON.stringify(query), () => {
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
