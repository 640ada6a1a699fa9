import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/server';
import { isTerminal, maxAttemptsFor, type ExecutionEvent, type ExecutionLogEvent } from '#executions/index.js';
import { CancelExecution } from './cancel-execution.js';
import { ExecuteSkill } from './execute-skill.js';
import { ExecutionStream } from './execution-stream.js';
import type { ExposedSkill } from '../tool-definitions/exposed-skills.js';
import { callerKey } from '../auth/principal.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { domainErrorResult, executionResult } from '../mcp-protocol/mcp-tool-results.js';
import { extractTraceContext } from '#observability/index.js';

/** Queueing and retry back-off on top of the handler's own time. */
const WAIT_SLACK_SECONDS = 30;
/**
 * How long a finished execution's last events (log lines, its end) may take to be forwarded before the
 * result: forwarding ends at the end event, so this only matters when the stream lags (under a CPU hog
 * it lagged more than 2 s and the last log lines were dropped), or never carries the end (Redis down).
 */
const DRAIN_MS = 10_000;

export interface ToolCallContext {
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** Set when the client asked for progress (sent a progressToken). */
  reportProgress?: (progress: number, message: string) => Promise<void>;
  /** Set when the client may receive log notifications (the SDK's `mcpReq.log`, which applies the client's level). */
  log?: (level: LoggingLevel, data: unknown, logger: string) => Promise<void>;
  /** The request's `_meta`: a branch for this call (`io.skill-registry/branch`) and its `traceparent`. */
  meta?: Record<string, unknown>;
}

/** The `_meta` key of a tool call naming the twin branch it works on (over the connection's). */
const BRANCH_META_KEY = 'io.skill-registry/branch';

/**
 * `tools/call` of a skill: executes it through ExecuteSkill — the same use-case as
 * POST /v1/skills/{name}/executions, so input validation, deprecation warnings and usage are the
 * same — and waits for the result for as long as the skill may run (its timeout × attempts).
 * While waiting, the execution's events become progress notifications and its log lines log
 * notifications (logger = the skill); a cancelled call cancels the execution.
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
        branch: branchOf(context.meta, connection),
        traceContext: context.meta?.traceparent !== undefined ? extractTraceContext(context.meta) : connection.traceContext,
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
    const forwarding =
      context.reportProgress || context.log
        ? this.forwardEvents(execution.id, skill, context, following.signal, callerKey(connection.principal, connection.address))
        : null;
    let final = execution;
    try {
      final = await this.executeSkill.waitIfAsked(execution, waitSeconds, context.signal);
    } finally {
      // The result is announced by Postgres, the events come through Redis: let the last ones reach the client first.
      if (forwarding && isTerminal(final.status) && !context.signal.aborted) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([forwarding, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
        clearTimeout(timer);
      }
      following.abort();
      await forwarding;
    }
    if (context.signal.aborted && !isTerminal(final.status)) {
      await this.cancelExecution
        .cancel(final.id)
        .catch((error: Error) => this.logger.warn(`could not cancel ${final.id}: ${error.message}`));
    }
    return executionResult(final, skill, waitSeconds);
  }

  /**
   * Until the execution ends or `signal` fires: a log notification per log line, a progress
   * notification per other event.
   */
  private async forwardEvents(
    executionId: string,
    skill: ExposedSkill,
    context: ToolCallContext,
    signal: AbortSignal,
    caller: string,
  ): Promise<void> {
    let count = 0;
    try {
      for await (const { event } of this.stream.follow(executionId, '0', signal, caller)) {
        if (signal.aborted) return;
        if (event.type === 'log') await context.log?.(event.level, logData(event), skill.skillName);
        else await context.reportProgress?.(++count, describeEvent(event));
      }
    } catch (error) {
      // Best effort: the result still comes from the execution record.
      if (!signal.aborted) this.logger.debug(`events of ${executionId} stopped: ${(error as Error).message}`);
    }
  }
}

/** The branch of a call: its `_meta` names one, else the connection's; a non-string is refused like any bad branch name. */
export function branchOf(meta: Record<string, unknown> | undefined, connection: McpConnection): string | undefined {
  const named = meta?.[BRANCH_META_KEY];
  if (named === undefined) return connection.branch;
  return typeof named === 'string' ? named : String(JSON.stringify(named));
}

/** The `data` of a log notification: the line's message and fields as the skill logged them. */
function logData(event: ExecutionLogEvent): Record<string, unknown> {
  const { message, fields, truncated, at } = event;
  return { message, ...(fields ? { fields } : {}), ...(truncated ? { truncated } : {}), at };
}

function describeEvent(event: ExecutionEvent): string {
  switch (event.type) {
    case 'queued':
      return `queued ${event.skill} ${event.version}`;
    case 'started':
      return `attempt ${event.attempt} started`;
    case 'attempt_failed':
      return `attempt ${event.attempt} failed (${event.error.code}: ${event.error.message}); retrying in ${event.next_delay_ms} ms`;
    case 'tool_invoked':
      return `calling tool ${event.tool_id}`;
    case 'output_invalid':
      return `try ${event.try} of attempt ${event.attempt} returned invalid output${event.reask ? '; asking again' : ''}`;
    case 'tool_completed':
      if (event.disabled) return `tool ${event.tool_id} is disabled (TOOLS_DISABLED); the skill decides`;
      return `tool ${event.tool_id} ${event.ok ? 'completed' : `failed (${event.error?.code ?? 'error'})`} in ${event.duration_ms} ms`;
    case 'succeeded':
      return `succeeded on attempt ${event.attempt} in ${event.duration_ms} ms`;
    case 'failed':
      return `failed on attempt ${event.attempt} (${event.error.code}: ${event.error.message})`;
    case 'cancelled':
      return `cancelled: ${event.reason}`;
    case 'log':
      return `${event.level}: ${event.message}`;
    case 'twin_read':
      return `read work product ${event.work_product_id} revision ${event.revision} on ${event.branch}`;
    case 'twin_written':
      return `wrote ${event.kind} ${event.work_product_id} revision ${event.revision} on ${event.branch}`;
    default:
      // An event type newer than this description (the stream is shared with other features): its name.
      return (event as { type: string }).type.replace(/_/g, ' ');
  }
}
