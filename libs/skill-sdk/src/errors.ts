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
