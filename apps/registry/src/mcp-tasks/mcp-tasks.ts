import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { CursorInvalid, decodeCursor, encodeCursor } from '#contracts/index.js';
import { isTerminal, maxAttemptsFor, type ExecutionRecord } from '#executions/index.js';
import { extractTraceContext } from '#observability/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CancelExecution } from '../executions/cancel-execution.js';
import { ExecuteSkill } from '../executions/execute-skill.js';
import { ExecutionQueries } from '../executions/execution-queries.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { executionResult } from '../mcp-protocol/mcp-tool-results.js';
import { exposedToolOf, type ExposedSkill } from '../tool-definitions/exposed-skills.js';
import { McpTaskStore, type TaskRow } from './mcp-task-store.js';
import { pollIntervalFor } from './task-shapes.js';

/** Unfinished tasks one identity may hold; the spec asks receivers to bound them (2025-11-25 Tasks › Resource Management). */
const MAX_UNFINISHED_TASKS = 100;
/** A 2025-11-25 client may ask for a shorter time to live, not below this. */
const MIN_TTL_MS = 1000;
/** Expired tasks answer "Task has expired" this long before the sweep deletes them (then: not found). */
const EXPIRED_KEPT_MS = 60 * 60 * 1000;
/** tasks/result waits in slices this long, re-reading the row between them (a cancelled task ends the wait). */
const RESULT_WAIT_SLICE_SECONDS = 30;
/** `_meta` key tying a result to its task (2025-11-25 Tasks › Related Task Metadata). */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

export interface StartTask {
  skill: ExposedSkill;
  input: Record<string, unknown>;
  connection: McpConnection;
  /** The call's `_meta`: its branch and `traceparent`, as for a direct call. */
  meta?: Record<string, unknown>;
  /** 2025-11-25 `params.task.ttl`; the server's longest when absent. */
  ttlMs?: number;
  branch?: string;
}

/**
 * MCP tasks (issue 26 §2), once for both protocol revisions: a task is an execution (task id =
 * execution id), created through ExecuteSkill like any call and stored with its owner, time to live and
 * poll interval in Postgres before the CreateTaskResult goes out; polled from any replica, after a
 * restart too; found only by the identity that made it; cancelled through CancelExecution.
 */
@Injectable()
export class McpTasks {
  private readonly logger = new Logger(McpTasks.name);

  constructor(
    private readonly store: McpTaskStore,
    private readonly executeSkill: ExecuteSkill,
    private readonly cancelExecution: CancelExecution,
    private readonly executions: ExecutionQueries,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'MCP_TASK_TTL_MAX_MS'>,
  ) {}

  /** Starts the execution and stores its task; domain errors (bad input, queue down) are left to the caller. */
  async start(command: StartTask): Promise<TaskRow> {
    const owner = command.connection.principal.identity;
    if ((await this.store.countUnfinished(owner)) >= MAX_UNFINISHED_TASKS) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Too many unfinished tasks (${MAX_UNFINISHED_TASKS}) for this caller; wait for some to finish or cancel them (tasks/cancel)`,
      );
    }
    const { skill, connection, meta } = command;
    const { execution } = await this.executeSkill.execute({
      name: skill.skillName,
      tool: skill.toolName ?? undefined,
      input: command.input,
      branch: command.branch,
      traceContext: meta?.traceparent !== undefined ? extractTraceContext(meta) : connection.traceContext,
      sessionId: connection.sessionId,
      caller: owner,
      waitSeconds: 0,
    });
    const max = this.config.MCP_TASK_TTL_MAX_MS;
    const ttlMs = Math.min(max, Math.max(MIN_TTL_MS, Math.round(command.ttlMs ?? max)));
    try {
      return await this.store.create({ taskId: execution.id, owner, ttlMs, pollIntervalMs: pollIntervalFor(skill.timeoutSeconds) });
    } catch (error) {
      // No task to poll: do not leave its execution running for nobody.
      await this.cancelExecution.cancel(execution.id).catch(() => undefined);
      throw error;
    }
  }

  /** The owner's task; not found (another owner's too) or expired is JSON-RPC -32602, as the spec words them. */
  async get(taskId: string, owner: string): Promise<TaskRow> {
    const row = await this.store.find(taskId, owner);
    if (!row) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    if (row.expiresAt !== null && row.expiresAt.getTime() <= Date.now()) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task has expired');
    }
    return row;
  }

  /** What the task's tools/call would have returned, once it ended (waits until then, or until `signal`). */
  async result(taskId: string, owner: string, signal: AbortSignal): Promise<{ row: TaskRow; result: CallToolResult }> {
    for (;;) {
      const row = await this.get(taskId, owner);
      const { execution, version } = await this.executions.getWithVersion(taskId);
      if (row.cancelledAt !== null || isTerminal(execution.status)) return { row, result: this.toolResult(row, execution, version) };
      await this.executeSkill.waitIfAsked(execution, RESULT_WAIT_SLICE_SECONDS, signal);
      if (signal.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'tasks/result was cancelled before the task ended');
    }
  }

  /** The finished task's CallToolResult, tied to its task; null while it runs. */
  async finalResult(row: TaskRow): Promise<CallToolResult | null> {
    const { execution, version } = await this.executions.getWithVersion(row.taskId);
    return row.cancelledAt !== null || isTerminal(execution.status) ? this.toolResult(row, execution, version) : null;
  }

  /**
   * Cancels the task: it is `cancelled` from now on (2025-11-25: before the answer), and its execution
   * is cancelled through the usual path in the background (a queued one at once, a running one by its
   * executor). A task that already ended cannot be cancelled (-32602).
   */
  async cancel(taskId: string, owner: string): Promise<TaskRow> {
    const row = await this.get(taskId, owner);
    if (row.cancelledAt !== null || isTerminal(row.status)) {
      const status =
        row.cancelledAt !== null || row.status === 'CANCELLED' ? 'cancelled' : row.status === 'SUCCEEDED' ? 'completed' : 'failed';
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${status}'`);
    }
    const cancelled = (await this.store.markCancelled(taskId, owner)) ?? row;
    void this.cancelExecution
      .cancel(taskId)
      .catch((error: Error) => this.logger.debug(`cancelling the execution of task ${taskId}: ${error.message}`));
    return cancelled;
  }

  /** The owner's unexpired tasks, newest first, 50 a page. */
  async list(owner: string, cursor: unknown): Promise<{ rows: TaskRow[]; nextCursor?: string }> {
    const after = cursor === undefined ? undefined : decodeTaskCursor(cursor);
    const rows = await this.store.list(owner, PAGE + 1, after);
    const page = rows.slice(0, PAGE);
    const last = page[page.length - 1];
    return rows.length > PAGE && last
      ? { rows: page, nextCursor: encodeCursor(`${last.createdAt.toISOString()}|${last.taskId}`) }
      : { rows: page };
  }

  /** Waits (in the background) for the task's execution to end, then calls `ended` with its row. */
  watch(row: TaskRow, skill: ExposedSkill, ended: (row: TaskRow) => Promise<void>): void {
    const seconds = skill.timeoutSeconds * maxAttemptsFor(skill) + RESULT_WAIT_SLICE_SECONDS;
    void this.executions
      .get(row.taskId)
      .then((execution) => this.executeSkill.waitIfAsked(execution, seconds))
      .then(async (execution) => {
        if (!isTerminal(execution.status)) return;
        const latest = await this.store.find(row.taskId, row.owner);
        if (latest) await ended(latest);
      })
      .catch((error: Error) => this.logger.debug(`task ${row.taskId} status not announced: ${error.message}`));
  }

  /** Deletes tasks expired for an hour; run by the module's timer. */
  sweep(): Promise<number> {
    return this.store.sweepExpired(EXPIRED_KEPT_MS);
  }

  private toolResult(row: TaskRow, execution: ExecutionRecord, version: Parameters<typeof exposedToolOf>[0] | null): CallToolResult {
    const related = { [RELATED_TASK_META_KEY]: { taskId: row.taskId } };
    if (row.cancelledAt !== null && !isTerminal(execution.status)) {
      return { isError: true, content: [{ type: 'text', text: 'CANCELLED: the task was cancelled through tasks/cancel' }], _meta: related };
    }
    const tool = version ? exposedToolOf(version, execution.tool) : null;
    const result = executionResult(execution, tool ?? { nextTools: null, outputSchema: null }, 0);
    return { ...result, _meta: { ...result._meta, ...related } };
  }
}

const PAGE = 50;
const ISSUED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The position a tasks/list cursor names (`<ISO time>|<task id>`), or -32602. */
function decodeTaskCursor(cursor: unknown): { createdAt: Date; taskId: string } {
  try {
    const [at, taskId, extra] = decodeCursor(cursor).split('|');
    if (extra === undefined && at && ISSUED_AT.test(at) && taskId) return { createdAt: new Date(at), taskId };
  } catch (error) {
    if (!(error instanceof CursorInvalid)) throw error;
  }
  throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the previous tasks/list page');
}
