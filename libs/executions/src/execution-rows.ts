import type { SkillFormat, StoredTool } from '#contracts/index.js';
import type { ExecutableVersion, ExecutionError, ExecutionPurpose, ExecutionRecord, ExecutionStatus } from './execution-model.js';

/** Mapping between executions rows (with their skill version's columns) and records. */

export const VERSION_COLUMNS = `v.status AS v_status, v.timeout_seconds AS v_timeout_seconds,
  v.retries AS v_retries, v.idempotent AS v_idempotent, v.input_schema AS v_input_schema, v.output_schema AS v_output_schema,
  v.input_schema_ref AS v_input_schema_ref, v.output_schema_ref AS v_output_schema_ref, v.tools_required AS v_tools_required,
  v.content_hash AS v_content_hash, v.format AS v_format, v.tools AS v_tools`;

export function toVersion(row: ExecutionRow): ExecutableVersion {
  return {
    name: row.skill_name as string,
    version: row.version as string,
    status: row.v_status as string,
    timeoutSeconds: row.v_timeout_seconds as number,
    retries: row.v_retries as number,
    idempotent: row.v_idempotent as boolean,
    inputSchema: row.v_input_schema as Record<string, unknown> | null,
    outputSchema: row.v_output_schema as Record<string, unknown> | null,
    inputSchemaRef: row.v_input_schema_ref as string,
    outputSchemaRef: row.v_output_schema_ref as string,
    toolsRequired: row.v_tools_required as ExecutableVersion['toolsRequired'],
    contentHash: row.v_content_hash as string,
    format: row.v_format as SkillFormat,
    tools: (row.v_tools as StoredTool[]) ?? [],
  };
}

export interface ExecutionRow {
  [column: string]: unknown;
}

export function toExecutionRecord(row: ExecutionRow): ExecutionRecord {
  return {
    id: row.id as string,
    skillVersionId: row.skill_version_id as string,
    skillName: row.skill_name as string,
    version: row.version as string,
    purpose: row.purpose as ExecutionPurpose,
    branch: (row.branch as string | undefined) ?? 'main',
    traceId: (row.trace_id as string | null | undefined) ?? null,
    traceParent: (row.trace_parent as string | null | undefined) ?? null,
    tool: (row.tool as string | null) ?? null,
    status: row.status as ExecutionStatus,
    input: row.input as Record<string, unknown>,
    output: (row.output as Record<string, unknown> | null) ?? null,
    error: (row.error as ExecutionError | null) ?? null,
    attempts: row.attempts as number,
    maxAttempts: row.max_attempts as number,
    attemptRunning: row.attempt_running as boolean,
    warnings: (row.warnings as string[]) ?? [],
    sessionId: (row.session_id as string | null) ?? null,
    caller: row.caller as string,
    idempotencyKey: (row.idempotency_key as string | null) ?? null,
    requestHash: (row.request_hash as string | null) ?? null,
    cancelRequestedAt: (row.cancel_requested_at as Date | null) ?? null,
    heartbeatAt: (row.heartbeat_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
    startedAt: (row.started_at as Date | null) ?? null,
    finishedAt: (row.finished_at as Date | null) ?? null,
    durationMs: (row.duration_ms as number | null) ?? null,
  };
}
