import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';

/** The wire view of GET /v1/facets (catalog-facets.ts returns exactly this). */
const facetCounts = z.array(z.object({ value: z.string(), count: z.number().int() })).describe('Values by count, then value');

export const catalogFacetsView = apiComponent(
  'CatalogFacets',
  z.object({
    total: z.number().int().describe('Skills that match the query and filters'),
    facets: z.object({
      domain: facetCounts,
      agent: facetCounts,
      phase: facetCounts.describe('The phase each skill needs (a `phase` filter of n keeps those ≤ n)'),
      status: facetCounts,
      format: facetCounts,
      tag: facetCounts,
      tools: facetCounts.describe('`none required`, `all available`, or `some unavailable` (required tools, asked of the adapters now)'),
    }),
  }),
  'How the skills matching a query divide by each facet, by their current version',
);

export type CatalogFacetsView = z.input<typeof catalogFacetsView>;
