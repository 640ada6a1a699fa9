import type { ExecutionRecord } from '#executions/index.js';
import type { ExecutionView } from './execution.views.js';

/** The public (snake_case) form of an execution: exactly the `Execution` view of the OpenAPI document. */
export function presentExecution(execution: ExecutionRecord): ExecutionView {
  return {
    id: execution.id,
    skill: execution.skillName,
    version: execution.version,
    tool: execution.tool,
    branch: execution.branch,
    trace_id: execution.traceId,
    status: execution.status,
    input: execution.input,
    output: execution.output,
    error: execution.error,
    attempts: execution.attempts,
    max_attempts: execution.maxAttempts,
    warnings: execution.warnings,
    session_id: execution.sessionId,
    caller: execution.caller,
    purpose: execution.purpose,
    cancel_requested_at: execution.cancelRequestedAt?.toISOString() ?? null,
    created_at: execution.createdAt.toISOString(),
    started_at: execution.startedAt?.toISOString() ?? null,
    finished_at: execution.finishedAt?.toISOString() ?? null,
    duration_ms: execution.durationMs,
  };
}
