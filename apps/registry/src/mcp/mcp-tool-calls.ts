import { Injectable } from '@nestjs/common';
import {
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CallSkillTool, branchOf } from '../executions/call-skill-tool.js';
import { McpTaskMethods } from '../mcp-tasks/mcp-task-methods.js';
import { DISCOVERY_TOOL_NAMES, DiscoveryTools } from '../search/discovery-tools.js';
import { LoadedSkills, TOOLSET_META_KEY } from '../mcp-protocol/loaded-skills.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { domainErrorResult } from '../mcp-protocol/mcp-tool-results.js';
import { LOADING_TOOL_NAMES } from './loading-tool-definitions.js';
import { McpToolList } from './mcp-tool-list.js';
import { SkillLoadingTools } from './skill-loading-tools.js';
import { stubCallResult } from './tool-stubs.js';

/**
 * `tools/call` of the MCP endpoint: a discovery tool, a loading tool (progressive mode), a stub (a tool
 * error naming the tool that makes it real), or a skill's tool — callable whether or not the connection
 * loaded its skill: loading decides what tools/list costs the agent's context, the filter and the tokens
 * decide what it may call.
 */
@Injectable()
export class McpToolCalls {
  constructor(
    private readonly toolList: McpToolList,
    private readonly discovery: DiscoveryTools,
    private readonly loading: SkillLoadingTools,
    private readonly callSkill: CallSkillTool,
    private readonly taskMethods: McpTaskMethods,
  ) {}

  /** What `connection` has loaded for this request: a session's own state, or what a 2026-07-28 request's `_meta` carries. */
  loadedOf(connection: McpConnection, context: ServerContext): LoadedSkills {
    if (connection.era === 'legacy') return connection.tools;
    const meta = context.mcpReq._meta as Record<string, unknown> | undefined;
    return LoadedSkills.fromToken(connection.tools.mode, meta?.[TOOLSET_META_KEY]);
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    connection: McpConnection,
    context: ServerContext,
    request: { task?: unknown; server: McpServer['server'] },
  ): Promise<CallToolResult> {
    if (DISCOVERY_TOOL_NAMES.has(name)) {
      try {
        return this.discovery.call(name, args, connection);
      } catch (error) {
        const result = domainErrorResult(error);
        if (result) return result;
        throw error;
      }
    }
    const loaded = this.loadedOf(connection, context);
    if (loaded.mode === 'progressive') {
      if (LOADING_TOOL_NAMES.has(name)) return this.loading.call(name, args, connection, loaded, () => this.announce(connection, context));
      const stub = stubCallResult(name);
      if (stub) return stub;
    }
    const skill = this.toolList.findSkill(name, connection.filter);
    // The spec's answer to a tool that is not one of this connection's (JSON-RPC -32602).
    if (!skill) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const meta = context.mcpReq._meta as Record<string, unknown> | undefined;
    const task = this.taskMethods.taskRequested(connection, skill, request.task, context);
    if (task) {
      return this.taskMethods.callAsTask(skill, args, connection, {
        ttlMs: task.ttlMs,
        meta,
        branch: branchOf(meta, connection),
        server: request.server,
      });
    }
    const progressToken = context.mcpReq._meta?.progressToken;
    const reportProgress =
      progressToken === undefined
        ? undefined
        : (progress: number, message: string) =>
            context.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } });
    const log = wantsLogs(context) ? context.mcpReq.log : undefined;
    return this.callSkill.call(skill, args, connection, { signal: context.mcpReq.signal, reportProgress, log, meta });
  }

  /** A 2025-era session hears of its changed tools/list on the call's own stream, before the result. */
  private async announce(connection: McpConnection, context: ServerContext): Promise<void> {
    if (connection.era !== 'legacy') return;
    connection.tools.announced = this.toolList.fingerprint(connection.filter, connection.tools);
    await context.mcpReq.notify({ method: 'notifications/tools/list_changed' });
  }
}

/**
 * Whether mcpReq.log can deliver anything for this request, so a call nobody gets logs for does not
 * follow the execution's events: a 2025-era session gets every level until it sends
 * logging/setLevel; a 2026-07-28 request (it carries the `_meta` envelope) only the levels at or
 * above the `io.modelcontextprotocol/logLevel` it names, none without one.
 */
function wantsLogs(context: ServerContext): boolean {
  // The SDK's declaration of the envelope type lost its keys (it reads `{}`).
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope === undefined || envelope[LOG_LEVEL_META_KEY] !== undefined;
}
