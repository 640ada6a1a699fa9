import type { ExecutionError, ExecutionPurpose, ExecutionRecord, ExecutionStatus } from './execution-model.js';

/** Mapping between executions rows and records (skill versions are read by libs/skill-versions). */

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
