import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiJson, ApiQueryParams } from '../openapi/api-decorators.js';
import { parseOrThrow } from '../validation.js';
import { CatalogFacets } from './catalog-facets.js';
import { catalogFacetsQuery } from './search.dto.js';
import { type CatalogFacetsView, catalogFacetsView } from './facets.views.js';

@ApiTags('search')
@Controller('v1/facets')
export class FacetsController {
  constructor(private readonly facets: CatalogFacets) {}

  @Get()
  @ApiOperation({
    summary: 'How the skills of a catalog view divide by domain, agent, phase, status, format, tag and tool availability',
    description:
      'The skills counted are those the same view lists: with `q`, every match of GET /v1/search; without, every skill ' +
      'GET /v1/skills lists with these filters. Each by its current version.',
  })
  @ApiQueryParams(catalogFacetsQuery, {
    q: 'Search text, 1–200 characters (as GET /v1/search); absent: the list',
    domain: 'Only skills of this engineering domain',
    agent: 'Only skills owned by this agent',
    tag: 'Repeatable; every tag must match',
    status: 'Only this status (default: as the search or the list)',
    phase: 'Only skills usable at this phase (phase ≤ n, 1–3)',
  })
  @ApiJson(200, catalogFacetsView, { description: 'Counts per facet value' })
  facetsOf(@Query() query: unknown): Promise<CatalogFacetsView> {
    return this.facets.count(parseOrThrow(catalogFacetsQuery, query, 'query'));
  }
}
