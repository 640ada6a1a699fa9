import { presentDeprecation, presentSkillSummary } from '../skills/skill.presenter.js';
import type { SkillSearchHit } from './skill-search-index.js';
import type { SearchHitView } from './search.views.js';

/** One search result in the public (snake_case) form (the `SearchHit` view); scores rounded to 4 decimals. */
export function presentSearchHit(hit: SkillSearchHit): SearchHitView {
  const { version } = hit;
  return {
    name: hit.name,
    version: version.version,
    score: Math.round(hit.score * 10_000) / 10_000,
    status: hit.status,
    domain: version.domain,
    agent: version.agent,
    description: version.description,
    tags: version.tags,
    matched_fields: hit.matched_fields,
    pending_dependencies: version.pendingDependencies,
    deprecation: presentDeprecation(version),
    ...presentSkillSummary(version),
  };
}
