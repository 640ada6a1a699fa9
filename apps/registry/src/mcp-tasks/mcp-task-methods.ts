import { Inject, Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type McpServer,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { domainErrorResult } from '../mcp-protocol/mcp-tool-results.js';
import { asDomainError, DomainError } from '../problem/domain-errors.js';
import type { ExposedSkill } from '../tool-definitions/exposed-skills.js';
import { McpTasks } from './mcp-tasks.js';
import { isTerminalTask, legacyTask, modernTask, taskStateOf, type TaskEra } from './task-shapes.js';

/** The 2026-07-28 tasks extension (SEP-2663). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const MODEL_IMMEDIATE_RESPONSE_META_KEY = 'io.modelcontextprotocol/model-immediate-response';

const taskId = z.string().min(1).max(200);
const taskParams = z.looseObject({ taskId });
const listParams = z.looseObject({ cursor: z.string().max(1000).optional() });
/** 2025-11-25 `params.task` of a tools/call. */
const taskRequest = z.looseObject({ ttl: z.number().int().min(0).optional() });

/**
 * The MCP tasks methods on the wire, written once for both protocol revisions through the SDK's
 * custom-method handlers (the SDK v2 has no task helpers): `tasks/get` and `tasks/cancel` in both,
 * `tasks/result` and `tasks/list` on 2025-era sessions (the SDK answers -32601 for them on 2026-07-28),
 * `tasks/update` on 2026-07-28 requests; and the task-augmented `tools/call` of both.
 */
@Injectable()
export class McpTaskMethods {
  /** Callers are told apart only when agent tokens are configured; without, tasks/list would show everyone's (the spec says: do not declare it). */
  private readonly callersIdentified: boolean;

  constructor(
    private readonly tasks: McpTasks,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'AGENT_TOKENS'>,
  ) {
    this.callersIdentified = config.AGENT_TOKENS.length > 0;
  }

  /** The capabilities that declare tasks on this era: 2025-11-25's `tasks`, or the 2026-07-28 extension. */
  capabilities(era: TaskEra): ServerCapabilities {
    if (era === 'modern') return { extensions: { [TASKS_EXTENSION]: {} } };
    return { tasks: { ...(this.callersIdentified ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } } };
  }

  attach(mcp: McpServer, connection: McpConnection): void {
    const era = connection.era;
    const owner = () => connection.principal.identity;
    mcp.server.setRequestHandler('tasks/get', { params: taskParams }, async (params, context) => {
      this.requireExtension(era, context);
      const row = await this.tasks.get(params.taskId, owner());
      const state = taskStateOf(row, era);
      if (era === 'legacy') return legacyTask(state);
      const result = isTerminalTask(state.status) && state.status !== 'cancelled' ? await this.tasks.finalResult(row) : null;
      return { ...modernTask(state), ...(result ? { result } : {}) };
    });
    mcp.server.setRequestHandler('tasks/cancel', { params: taskParams }, async (params, context) => {
      this.requireExtension(era, context);
      if (era === 'legacy') return legacyTask(taskStateOf(await this.tasks.cancel(params.taskId, owner()), era));
      // 2026-07-28: an acknowledgement; a task that already ended keeps its status.
      const row = await this.tasks.get(params.taskId, owner());
      if (!isTerminalTask(taskStateOf(row, era).status)) await this.tasks.cancel(params.taskId, owner());
      return {};
    });
    mcp.server.setRequestHandler('tasks/result', { params: taskParams }, async (params, context) => {
      if (era !== 'legacy') throw methodNotFound('tasks/result');
      return (await this.tasks.result(params.taskId, owner(), context.mcpReq.signal)).result;
    });
    mcp.server.setRequestHandler('tasks/list', { params: listParams }, async (params) => {
      if (era !== 'legacy' || !this.callersIdentified) throw methodNotFound('tasks/list');
      const { rows, nextCursor } = await this.tasks.list(owner(), params.cursor);
      return { tasks: rows.map((row) => legacyTask(taskStateOf(row, era))), ...(nextCursor ? { nextCursor } : {}) };
    });
    // The SDK lifts `inputResponses` out of the params of every 2026-07-28 request (into mcpReq.inputResponses).
    mcp.server.setRequestHandler('tasks/update', { params: taskParams }, async (params, context) => {
      if (era !== 'modern') throw methodNotFound('tasks/update');
      this.requireExtension(era, context);
      // No task of this registry asks for input: every response is for a key not outstanding, which the spec says to ignore.
      await this.tasks.get(params.taskId, owner());
      return {};
    });
  }

  /**
   * Whether this tools/call becomes a task, by the protocol's rules: 2025-11-25 — the client asked
   * (`params.task`), and a tool whose taskSupport forbids (or requires) it is -32601; 2026-07-28 — the
   * client declared the extension and the tool's taskSupport is not `forbidden`; a tool that requires a
   * task, called by a client without the extension, is -32021.
   */
  taskRequested(connection: McpConnection, skill: ExposedSkill, requestTask: unknown, context: ServerContext): { ttlMs?: number } | null {
    if (connection.era === 'legacy') {
      if (requestTask === undefined) {
        if (skill.taskSupport === 'required') {
          throw new ProtocolError(
            ProtocolErrorCode.MethodNotFound,
            `Tool '${skill.name}' must be called as a task (execution.taskSupport: required)`,
          );
        }
        return null;
      }
      if (skill.taskSupport === 'forbidden') {
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool '${skill.name}' cannot be called as a task (execution.taskSupport: forbidden)`,
        );
      }
      const parsed = taskRequest.safeParse(requestTask);
      if (!parsed.success) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid params.task: { ttl?: integer milliseconds }');
      return { ttlMs: parsed.data.ttl };
    }
    const declared = declaresExtension(context);
    if (!declared && skill.taskSupport === 'required') throw missingExtension();
    return declared && skill.taskSupport !== 'forbidden' ? {} : null;
  }

  /** Runs a task-augmented tools/call: the CreateTaskResult of its era, once the task is stored. */
  async callAsTask(
    skill: ExposedSkill,
    input: Record<string, unknown>,
    connection: McpConnection,
    request: { ttlMs?: number; meta?: Record<string, unknown>; branch?: string; server: McpServer['server'] },
  ): Promise<CallToolResult> {
    let row;
    try {
      row = await this.tasks.start({ skill, input, connection, meta: request.meta, ttlMs: request.ttlMs, branch: request.branch });
    } catch (error) {
      // 2026-07-28: the server may answer without a task, so the tool error is the answer; a 2025-11-25 client
      // that asked for a task reads a CreateTaskResult or a JSON-RPC error.
      if (connection.era === 'modern') {
        const result = domainErrorResult(error);
        if (result) return result;
      }
      throw asProtocolError(error);
    }
    const state = taskStateOf(row, connection.era);
    // The SDK requires `content` on every tools/call result; a CreateTaskResult carries an empty one beside its task.
    if (connection.era === 'modern') return { content: [], resultType: 'task', ...modernTask(state) } as CallToolResult;
    const server = request.server;
    this.tasks.watch(row, skill, (ended) =>
      server.notification({ method: 'notifications/tasks/status', params: legacyTask(taskStateOf(ended, 'legacy')) }),
    );
    return {
      content: [],
      task: legacyTask(state),
      _meta: {
        [MODEL_IMMEDIATE_RESPONSE_META_KEY]: `'${skill.name}' is running as task ${row.taskId}; its result comes with tasks/result.`,
      },
    } as CallToolResult;
  }

  private requireExtension(era: TaskEra, context: ServerContext): void {
    if (era === 'modern' && !declaresExtension(context)) throw missingExtension();
  }
}

/** Whether a 2026-07-28 request declares the tasks extension in its per-request client capabilities. */
function declaresExtension(context: ServerContext): boolean {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function missingExtension(): ProtocolError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    'Missing required client capability: the io.modelcontextprotocol/tasks extension',
  );
}

function methodNotFound(method: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MethodNotFound, `Method not found: ${method} is not part of this protocol revision's tasks`);
}

/** A 2025-11-25 task request refused before its task existed: the client's mistake is -32602, the registry's state -32603. */
function asProtocolError(thrown: unknown): unknown {
  const error = asDomainError(thrown);
  if (!(error instanceof DomainError)) return thrown;
  const code = error.code.endsWith('_UNAVAILABLE') ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
  return new ProtocolError(code, `${error.code}: ${error.message}`, { code: error.code, details: error.details });
}
