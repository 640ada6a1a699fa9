import type { LifecycleEventRecord, SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';
import { summariseRuntimes } from '#contracts/index.js';
import type {
  DeprecationView,
  LifecycleEventView,
  SkillListItemView,
  SkillSummaryView,
  SkillVersionView,
  SkillView,
} from './skill.views.js';

/** The public (snake_case) form of a skill version: exactly the `SkillVersion` view of the OpenAPI document (skill.views.ts). */
export function presentVersion(version: SkillVersionRecord): SkillVersionView {
  return {
    name: version.name,
    version: version.version,
    status: version.status,
    status_reason: version.statusReason,
    status_changed_at: version.statusChangedAt.toISOString(),
    domain: version.domain,
    agent: version.agent,
    description: version.description,
    phase: version.phase,
    tools_required: version.toolsRequired,
    input_schema: version.inputSchema,
    output_schema: version.outputSchema,
    input_schema_ref: version.inputSchemaRef,
    output_schema_ref: version.outputSchemaRef,
    timeout_seconds: version.timeoutSeconds,
    retries: version.retries,
    max_retries_per_gate: version.maxRetriesPerGate,
    idempotent: version.idempotent,
    read_only: version.readOnly,
    tags: version.tags,
    examples: version.examples,
    content_hash: version.contentHash,
    depends_on: version.dependsOn,
    pending_dependencies: version.pendingDependencies,
    compatibility: version.compatibility,
    format: version.format,
    tools: version.tools,
    agent_skill: version.agentSkill,
    prompts: version.prompts,
    resources: version.resources,
    workflows: version.workflows,
    runtimes: version.runtimes,
    ...presentSkillSummary(version),
    validation: version.validation,
    deprecation: presentDeprecation(version),
    created_at: version.createdAt.toISOString(),
    updated_at: version.updatedAt.toISOString(),
  };
}

/**
 * Seed 004's SkillSummary fields of a version: its tools by count and name (a TypeScript skill is one tool, named
 * like itself), dcc, layer, trust scope, implicit invocation and runtime state.
 */
export function presentSkillSummary(version: SkillVersionRecord): SkillSummaryView {
  const toolNames = version.format === 'agent-skills' ? version.tools.map((tool) => tool.name) : [version.name];
  return {
    tool_count: toolNames.length,
    tool_names: toolNames,
    dcc: version.agentSkill?.dcc ?? (version.format === 'agent-skills' ? 'python' : null),
    layer: version.agentSkill?.layer ?? null,
    scope: version.scope,
    implicit_invocation: version.agentSkill?.implicit_invocation ?? true,
    runtime: summariseRuntimes(version.runtimes, (version.runtimesProbedAt ?? version.createdAt).toISOString()),
  };
}

export function presentDeprecation(version: SkillVersionRecord): DeprecationView | null {
  if (version.status !== 'DEPRECATED') return null;
  return {
    reason: version.deprecationReason,
    since: version.deprecatedAt?.toISOString() ?? null,
    successor: version.deprecationSuccessor,
    sunset: version.deprecationSunset?.toISOString() ?? null,
  };
}

/** A skill by its current version, with a summary of every version. */
export function presentSkill(skill: SkillRecord, current: SkillVersionRecord): SkillView {
  return {
    ...presentVersion(current),
    versions: skill.versions.map((version) => ({ version: version.version, status: version.status })),
  };
}

/** A compact list item. */
export function presentListItem(skill: SkillRecord, current: SkillVersionRecord): SkillListItemView {
  return {
    name: skill.name,
    version: current.version,
    status: current.status,
    domain: current.domain,
    agent: current.agent,
    description: current.description,
    phase: current.phase,
    tags: current.tags,
    tools_required: current.toolsRequired,
    idempotent: current.idempotent,
    pending_dependencies: current.pendingDependencies,
    deprecation: presentDeprecation(current),
    versions: skill.versions.map((version) => ({ version: version.version, status: version.status })),
  };
}

export function presentEvent(event: LifecycleEventRecord): LifecycleEventView {
  return {
    version: event.version,
    from: event.from,
    to: event.to,
    actor: event.actor,
    reason: event.reason,
    forced: event.forced,
    evidence: event.evidence,
    at: event.at.toISOString(),
  };
}
