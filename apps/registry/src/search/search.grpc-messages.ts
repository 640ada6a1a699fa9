import { compact, enumGiven, given, tagsGiven, withProtoFields } from '../grpc/grpc-fields.js';
import { deprecationMessage, runtimeSummaryMessage } from '../skills/skills.grpc-messages.js';
import { presentSearchHit } from './search.presenter.js';
import { parseSearchSkillsQuery } from './search.dto.js';
import type { SkillSearchHit } from './skill-search-index.js';

/** SearchSkills over gRPC: the request through the REST query's parser, hits as the REST presenter gives them. */

export function searchHitMessage(hit: SkillSearchHit) {
  const json = presentSearchHit(hit);
  return {
    ...json,
    deprecation: deprecationMessage(json.deprecation),
    dcc: json.dcc ?? undefined,
    layer: json.layer ?? undefined,
    runtime: runtimeSummaryMessage(json.runtime),
  };
}

export interface SearchSkillsRequest {
  q?: string;
  domain?: string;
  dcc?: string;
  agent?: string;
  tags?: string[];
  status?: string;
  phase?: number;
  limit?: number;
}

export function parseSearchSkills(request: SearchSkillsRequest) {
  const query = withProtoFields(
    () =>
      parseSearchSkillsQuery(
        compact({
          q: given(request.q),
          domain: given(request.domain),
          dcc: given(request.dcc),
          agent: given(request.agent),
          tag: tagsGiven(request.tags),
          status: enumGiven(request.status, 'status'),
          phase: given(request.phase),
          limit: given(request.limit),
        }),
      ),
    { tag: 'tags' },
  );
  return {
    text: query.q ?? '',
    domain: query.domain,
    dcc: query.dcc,
    agent: query.agent,
    tags: query.tag,
    status: query.status,
    phase: query.phase,
    limit: query.limit,
  };
}
