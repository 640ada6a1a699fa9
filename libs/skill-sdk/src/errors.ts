/** Stable error codes shared by skills, the executor and every transport. */
export type SkillErrorCode =
  | 'INPUT_INVALID'
  | 'OUTPUT_INVALID'
  | 'PRECONDITION_FAILED'
  | 'TOOL_ERROR'
  | 'TOOL_TIMEOUT'
  | 'HANDLER_TIMEOUT'
  | 'HANDLER_ERROR'
  | 'WORKER_LOST'
  | 'SANDBOX_CRASHED'
  | 'RESOURCE_EXHAUSTED'
  | 'CANCELLED';

/** Base class of every error a skill handler may throw on purpose. */
export class SkillError extends Error {
  constructor(
    readonly code: SkillErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The skill met a condition it cannot recover from (maps to `HANDLER_ERROR`). */
export class SkillExecutionError extends SkillError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('HANDLER_ERROR', message, details);
  }
}

/** One or more preconditions failed before `execute` ran (maps to `PRECONDITION_FAILED`, never retried). */
export class SkillPreconditionError extends SkillError {
  constructor(
    readonly skillName: string,
    readonly failures: string[],
  ) {
    super('PRECONDITION_FAILED', `Preconditions of '${skillName}' failed: ${failures.join('; ')}`, { failures });
  }
}

/** A tool call through the MCP bridge failed (maps to `TOOL_ERROR`). */
export class McpToolError extends SkillError {
  constructor(
    readonly toolId: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super('TOOL_ERROR', `Tool '${toolId}' failed: ${message}`, { toolId, ...details });
  }
}

/** A tool call through the MCP bridge ran out of time or was aborted (maps to `TOOL_TIMEOUT`). */
export class McpTimeoutError extends SkillError {
  constructor(
    readonly toolId: string,
    readonly timeoutMs: number | null,
  ) {
    super('TOOL_TIMEOUT', timeoutMs === null ? `Tool '${toolId}' was aborted` : `Tool '${toolId}' did not answer within ${timeoutMs} ms`, {
      toolId,
      timeoutMs,
    });
  }
}

/** Why a twin call failed: the work product, revision or branch is not there, or the write was refused. */
export type TwinErrorReason = 'NOT_FOUND' | 'BRANCH_NOT_FOUND' | 'INVALID' | 'TOO_LARGE' | 'CANCELLED' | 'UNAVAILABLE';

/**
 * A digital twin call failed. Missing work products map to `PRECONDITION_FAILED` (the caller named
 * something that is not on the branch, never retried); anything else to `HANDLER_ERROR`.
 */
export class TwinError extends SkillError {
  constructor(
    readonly reason: TwinErrorReason,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(reason === 'NOT_FOUND' || reason === 'BRANCH_NOT_FOUND' ? 'PRECONDITION_FAILED' : 'HANDLER_ERROR', message, {
      reason,
      ...details,
    });
  }
}

/** A skill package could not be loaded (raised by loaders, reported as DRAFT by the registry). */
export class SkillLoadError extends Error {
  constructor(
    readonly skillName: string,
    readonly reason: string,
    readonly path: string,
  ) {
    super(`Failed to load skill '${skillName}' at ${path}: ${reason}`);
    this.name = 'SkillLoadError';
  }
}
