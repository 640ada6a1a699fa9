import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { isTerminal, maxAttemptsFor, type ExecutionEvent } from '../../../../libs/executions/src/index.js';
import { CancelExecution } from '../executions/cancel-execution.js';
import { ExecuteSkill } from '../executions/execute-skill.js';
import { ExecutionStream } from '../executions/execution-stream.js';
import type { ExposedSkill } from '../tool-definitions/exposed-skills.js';
import type { McpConnection } from './mcp-connection.js';
import { domainErrorResult, executionResult } from './mcp-tool-results.js';

/** Queueing and retry back-off on top of the handler's own time. */
const WAIT_SLACK_SECONDS = 30;

export interface ToolCallContext {
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Set when the client asked for progress (sent a progressToken). */
  reportProgress?: (progress: number, message: string) => Promise<void>;
}

/**
 * `tools/call` of a skill: executes it through ExecuteSkill — the same use-case as
 * POST /v1/skills/{name}/executions, so input validation, deprecation warnings and usage are the
 * same — and waits for the result for as long as the skill may run (its timeout × attempts).
 * While waiting, the execution's events become progress notifications; a cancelled call cancels
 * the execution.
 */
@Injectable()
export class CallSkillTool {
  private readonly logger = new Logger(CallSkillTool.name);

  constructor(
    private readonly executeSkill: ExecuteSkill,
    private readonly cancelExecution: CancelExecution,
    private readonly stream: ExecutionStream,
  ) {}

  async call(
    skill: ExposedSkill,
    input: Record<string, unknown>,
    connection: McpConnection,
    context: ToolCallContext,
  ): Promise<CallToolResult> {
    let started;
    try {
      started = await this.executeSkill.execute({
        name: skill.skillName,
        tool: skill.toolName ?? undefined,
        input,
        sessionId: connection.sessionId,
        caller: connection.principal.identity,
        waitSeconds: 0,
      });
    } catch (error) {
      const result = domainErrorResult(error);
      if (result) return result;
      throw error;
    }
    const { execution } = started;
    // The tool's own limits (for a TypeScript skill, its version's).
    const waitSeconds = skill.timeoutSeconds * maxAttemptsFor(skill) + WAIT_SLACK_SECONDS;
    const following = new AbortController();
    const progress = context.reportProgress ? this.followProgress(execution.id, context.reportProgress, following.signal) : null;
    let final = execution;
    try {
      final = await this.executeSkill.waitIfAsked(execution, waitSeconds, context.signal);
    } finally {
      following.abort();
      await progress;
    }
    if (context.signal.aborted && !isTerminal(final.status)) {
      await this.cancelExecution
        .cancel(final.id)
        .catch((error: Error) => this.logger.warn(`could not cancel ${final.id}: ${error.message}`));
    }
    return executionResult(final, skill, waitSeconds);
  }

  /** Sends one progress notification per execution event until the execution ends or `signal` fires. */
  private async followProgress(
    executionId: string,
    report: NonNullable<ToolCallContext['reportProgress']>,
    signal: AbortSignal,
  ): Promise<void> {
    let count = 0;
    try {
      for await (const stored of this.stream.follow(executionId, '0', signal)) {
        if (signal.aborted) return;
        await report(++count, describeEvent(stored.event));
      }
    } catch (error) {
      // Progress is best effort: the result still comes from the execution record.
      if (!signal.aborted) this.logger.debug(`progress of ${executionId} stopped: ${(error as Error).message}`);
    }
  }
}

export function describeEvent(event: ExecutionEvent): string {
  switch (event.type) {
    case 'queued':
      return `queued ${event.skill} ${event.version}`;
    case 'started':
      return `attempt ${event.attempt} started`;
    case 'attempt_failed':
      return `attempt ${event.attempt} failed (${event.error.code}: ${event.error.message}); retrying in ${event.next_delay_ms} ms`;
    case 'tool_invoked':
      return `calling tool ${event.tool_id}`;
    case 'tool_completed':
      return `tool ${event.tool_id} ${event.ok ? 'completed' : `failed (${event.error?.code ?? 'error'})`} in ${event.duration_ms} ms`;
    case 'succeeded':
      return `succeeded on attempt ${event.attempt} in ${event.duration_ms} ms`;
    case 'failed':
      return `failed on attempt ${event.attempt} (${event.error.code}: ${event.error.message})`;
    case 'cancelled':
      return `cancelled: ${event.reason}`;
  }
}
