import type { ExecutionRecord, StoredExecutionEvent } from '#executions/index.js';
import type { LifecycleEventRecord, SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';
import { presentExecution } from '../executions/execution.presenter.js';
import { presentSearchHit } from '../search/search.presenter.js';
import type { SkillSearchHit } from '../search/skill-search-index.js';
import { presentDeprecation, presentEvent, presentListItem, presentVersion } from '../skills/skill.presenter.js';
import { toStruct, toTimestamp } from './proto-values.js';

/**
 * Proto messages (skill_registry.proto) built from the REST presenters' output, so both transports
 * answer with the same data: only the encodings differ (Struct for JSON, Timestamp for ISO strings,
 * absent for null).
 */
type Json = Record<string, unknown>;

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
    deprecation: deprecationMessage(json.deprecation),
    created_at: toTimestamp(json.created_at),
    updated_at: toTimestamp(json.updated_at),
  };
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

export function searchHitMessage(hit: SkillSearchHit) {
  const json = presentSearchHit(hit);
  return { ...json, deprecation: deprecationMessage(json.deprecation) };
}

export function executionMessage(execution: ExecutionRecord) {
  const json = presentExecution(execution);
  return {
    ...json,
    input: toStruct(json.input),
    output: toStruct(json.output),
    error: json.error ? { code: json.error.code, message: json.error.message, details: toStruct(json.error.details) } : undefined,
    session_id: json.session_id ?? undefined,
    tool: json.tool ?? undefined,
    trace_id: json.trace_id ?? undefined,
    cancel_requested_at: toTimestamp(json.cancel_requested_at),
    created_at: toTimestamp(json.created_at),
    started_at: toTimestamp(json.started_at),
    finished_at: toTimestamp(json.finished_at),
    duration_ms: json.duration_ms ?? undefined,
  };
}

/** One event of the execution's stream: the same id, type and JSON the SSE stream sends. */
export function executionEventMessage(stored: StoredExecutionEvent) {
  return {
    id: stored.id,
    type: stored.event.type,
    at: toTimestamp(stored.event.at),
    data: toStruct(stored.event as unknown as Json),
  };
}

export function usageMessage(usage: {
  skill: string;
  versions: { version: string; status: string; windows: Json; last_called_at: string | null }[];
  dependents: unknown[];
}) {
  return {
    skill: usage.skill,
    dependents: usage.dependents,
    versions: usage.versions.map((version) => ({ ...version, last_called_at: toTimestamp(version.last_called_at) })),
  };
}
