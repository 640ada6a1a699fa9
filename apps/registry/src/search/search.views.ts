import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { nextCursor } from '../openapi/wire-types.js';
import { skillSummaryFields } from '../skills/skill-sidecar.views.js';
import { deprecationView, skillDependencyView, skillStatus } from '../skills/skill.views.js';

/** The wire views of GET /v1/search (search.presenter.ts returns exactly these). */

const searchHitView = apiComponent(
  'SearchHit',
  z.object({
    name: z.string(),
    version: z.string(),
    score: z.number().describe('BM25 score, rounded to 4 decimals'),
    status: skillStatus,
    domain: z.string(),
    agent: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    matched_fields: z.array(z.string()),
    pending_dependencies: z.array(skillDependencyView),
    deprecation: deprecationView.nullable(),
    ...skillSummaryFields,
  }),
);

export const searchResultsView = apiComponent(
  'SearchResults',
  z.object({ items: z.array(searchHitView), total: z.number().int().describe('Every match, beyond `limit`'), next_cursor: nextCursor }),
);

export type SearchHitView = z.input<typeof searchHitView>;
