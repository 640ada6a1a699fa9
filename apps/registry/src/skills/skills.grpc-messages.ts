import { Metadata } from '@grpc/grpc-js';
import type { LifecycleEventRecord, SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';
import { compact, enumGiven, given, tagsGiven, withProtoFields } from '../grpc/grpc-fields.js';
import { toStruct, toTimestamp } from '../grpc/proto-values.js';
import { WithTrailers } from '../grpc/registry-grpc-server.js';
import { deprecationSignals } from './deprecation-headers.js';
import { presentDeprecation, presentEvent, presentListItem, presentVersion } from './skill.presenter.js';
import { parseListSkillsQuery } from './skills.dto.js';
import type { SkillVersionView } from './skill.views.js';

/**
 * Proto messages (skill_registry.proto) built from the REST presenters' output, so both transports
 * answer with the same data: only the encodings differ (Struct for JSON, Timestamp for ISO strings,
 * absent for null).
 */
type Json = Record<string, unknown>;

/** `response`, with the deprecation trailers (`deprecation`, `sunset`, `link`) when one of `versions` is DEPRECATED. */
export function withDeprecationTrailers<T>(response: T, versions: SkillVersionRecord[]): T | WithTrailers<T> {
  const signals = deprecationSignals(versions);
  if (!signals) return response;
  const trailers = new Metadata();
  trailers.set('deprecation', signals.deprecation);
  if (signals.sunset) trailers.set('sunset', signals.sunset);
  if (signals.link) trailers.set('link', signals.link);
  return new WithTrailers(response, trailers);
}

export function deprecationMessage(deprecation: ReturnType<typeof presentDeprecation>) {
  if (!deprecation) return undefined;
  return {
    reason: deprecation.reason ?? '',
    since: toTimestamp(deprecation.since),
    successor: deprecation.successor ?? undefined,
    sunset: toTimestamp(deprecation.sunset),
  };
}

export function skillVersionMessage(version: SkillVersionRecord) {
  const json = presentVersion(version);
  return {
    ...json,
    status_reason: json.status_reason ?? undefined,
    status_changed_at: toTimestamp(json.status_changed_at),
    input_schema: toStruct(json.input_schema),
    output_schema: toStruct(json.output_schema),
    examples: json.examples.map((example) => toStruct(example as unknown as Json)),
    tools: json.tools.map((tool) => toStruct(tool as unknown as Json)),
    agent_skill: toStruct(json.agent_skill as unknown as Json | null),
    prompts: json.prompts.map((prompt) => toStruct(prompt as unknown as Json)),
    resources: json.resources.map((resource) => toStruct(resource as unknown as Json)),
    workflows: json.workflows.map((workflow) => toStruct(workflow as unknown as Json)),
    runtimes: json.runtimes.map((runtime) => toStruct(runtime as unknown as Json)),
    dcc: json.dcc ?? undefined,
    layer: json.layer ?? undefined,
    runtime: runtimeSummaryMessage(json.runtime),
    deprecation: deprecationMessage(json.deprecation),
    created_at: toTimestamp(json.created_at),
    updated_at: toTimestamp(json.updated_at),
  };
}

/** Seed 004's runtime summary with its timestamp as the proto's. */
export function runtimeSummaryMessage(runtime: SkillVersionView['runtime']) {
  return runtime ? { ...runtime, probed_at: toTimestamp(runtime.probed_at) } : undefined;
}

export function versionSummaries(skill: SkillRecord) {
  return skill.versions.map((version) => ({ version: version.version, status: version.status }));
}

export function skillSummaryMessage(skill: SkillRecord, current: SkillVersionRecord) {
  const json = presentListItem(skill, current);
  return { ...json, deprecation: deprecationMessage(json.deprecation) };
}

export function lifecycleEventMessage(event: LifecycleEventRecord) {
  const json = presentEvent(event);
  return {
    ...json,
    from: json.from ?? undefined,
    reason: json.reason ?? undefined,
    evidence: toStruct(json.evidence),
    at: toTimestamp(json.at),
  };
}

export interface ListSkillsRequest {
  domain?: string;
  agent?: string;
  phase?: number;
  status?: string;
  tags?: string[];
  q?: string;
  limit?: number;
  cursor?: string;
}

export function parseListSkills(request: ListSkillsRequest) {
  const query = withProtoFields(
    () =>
      parseListSkillsQuery(
        compact({
          domain: given(request.domain),
          agent: given(request.agent),
          phase: given(request.phase),
          status: enumGiven(request.status, 'status'),
          tag: tagsGiven(request.tags),
          q: given(request.q),
          limit: given(request.limit),
          cursor: given(request.cursor),
        }),
      ),
    { tag: 'tags' },
  );
  return {
    domain: query.domain,
    agent: query.agent,
    phase: query.phase,
    status: query.status,
    tags: query.tag,
    q: query.q,
    limit: query.limit,
    cursor: query.cursor,
  };
}
