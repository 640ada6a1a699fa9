import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendJsonRead } from '../skills/conditional-get.js';
import { ApiJson, ApiNotModified, ApiProblems, ApiQueryParams } from '../openapi/api-decorators.js';
import { parseSearchSkillsQuery, searchSkillsQuery } from './search.dto.js';
import { searchResultsView } from './search.views.js';
import { SearchReads } from './search-reads.js';

@ApiTags('search')
@Controller('v1/search')
export class SearchController {
  constructor(private readonly reads: SearchReads) {}

  @Get()
  @ApiOperation({
    summary: 'Ranked search over the current version of every skill',
    description:
      'BM25 (k1 1.2, b 0.75) per field, weighted name 5, tags 3, domain 3, agent 3, description 2, required tool ids 2. ' +
      'A skill whose name equals the query (case-insensitive) comes first; then score descending, ACTIVE before DEPRECATED, name. ' +
      'DEPRECATED scores are multiplied by 0.8. Filters restrict the candidates before scoring. DRAFT and ARCHIVED skills only ' +
      'appear when `status` asks for them.',
  })
  @ApiQueryParams(searchSkillsQuery, {
    q: 'Search text, 1–200 characters',
    domain: 'Only skills of this engineering domain',
    agent: 'Only skills owned by this agent',
    tag: 'Repeatable; every tag must match',
    status: 'Only this status (default: every status but DRAFT and ARCHIVED)',
    phase: 'Only skills usable at this phase (phase ≤ n, 1–3)',
    limit: 'Results to return, 1–100 (default 10); `total` counts all',
    cursor: '`next_cursor` of the previous page: the next `limit` hits of the same ranking (up to the 10,000th)',
  })
  @ApiJson(200, searchResultsView, { description: 'The hits, best first', headers: ['ETag', 'Cache-Control'] })
  @ApiNotModified()
  @ApiProblems('INVALID_CURSOR')
  search(@Query() rawQuery: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    sendJsonRead(request, reply, this.reads.search(parseSearchSkillsQuery(rawQuery)));
  }
}
