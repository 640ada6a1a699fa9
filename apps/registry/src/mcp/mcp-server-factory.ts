import { Injectable, Logger } from '@nestjs/common';
import {
  LOG_LEVEL_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { CallSkillTool } from '../executions/call-skill-tool.js';
import { DISCOVERY_TOOL_NAMES, DiscoveryTools } from '../search/discovery-tools.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { domainErrorResult } from '../mcp-protocol/mcp-tool-results.js';
import { McpToolList } from './mcp-tool-list.js';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { RegistrySkillSource } from '../mcp-skills/registry-skill-source.js';
import { McpPrompts } from '../mcp-skills/mcp-prompts.js';
import { McpTwinResources } from '../twin/mcp-twin-resources.js';

const MCP_SERVER_INFO = { name: 'skill-registry', title: 'Skill Registry', version: '1.0.0' };

const INSTRUCTIONS =
  'Every ACTIVE or DEPRECATED engineering skill of this registry is a tool: call it with arguments matching its input schema ' +
  'and get its output as structured content. A DEPRECATED tool still works, but its description names the successor to ' +
  'switch to. Use search_skills to find skills by what they do and get_skill_info for the full definition of one. ' +
  'Failures come back as tool errors reading "CODE: message".';

/**
 * Builds the MCP server instance for one connection (a 2025-era session, or one 2026-era request).
 * Tools are answered from the live catalog rather than registered one by one: the set changes with
 * every promotion, deprecation and archive, and every connection sees it through its own filter.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger(McpServerFactory.name);

  constructor(
    private readonly toolList: McpToolList,
    private readonly discovery: DiscoveryTools,
    private readonly callSkill: CallSkillTool,
    private readonly skills: RegistrySkillSource,
    private readonly prompts: McpPrompts,
    private readonly twinResources: McpTwinResources,
  ) {}

  create(connection: McpConnection): McpServer {
    const mcp = new McpServer(MCP_SERVER_INFO, {
      // logging: the SDK answers logging/setLevel (per session) and filters what mcpReq.log sends by it.
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {} },
      instructions: INSTRUCTIONS,
    });
    mcp.server.setRequestHandler('tools/list', (request) => this.toolList.page(connection.filter, request.params?.cursor));
    mcp.server.setRequestHandler('tools/call', (request, context) =>
      this.callTool(request.params.name, request.params.arguments ?? {}, connection, context),
    );
    mcp.server.setRequestHandler('prompts/list', (request) => this.prompts.list(connection.filter, request.params?.cursor));
    mcp.server.setRequestHandler('prompts/get', (request) => this.prompts.get(connection.filter, request.params.name));
    // The MCP Skills extension (SEP-2640): skills/list, skills/get, skill:// resources, directory reads.
    new SkillsExtension({
      source: this.skills.for(connection.filter),
      onWarning: (warning) => this.logger.warn(`skills: ${warning.path}: ${warning.message}`),
    }).attach(mcp);
    // Work products of the digital twin: twin://<branch>/<id>.
    this.twinResources.attach(mcp, connection);
    return mcp;
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    connection: McpConnection,
    context: ServerContext,
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
    const skill = this.toolList.findSkill(name, connection.filter);
    // The spec's answer to a tool that is not in this connection's tools/list (JSON-RPC -32602).
    if (!skill) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const progressToken = context.mcpReq._meta?.progressToken;
    const reportProgress =
      progressToken === undefined
        ? undefined
        : (progress: number, message: string) =>
            context.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, message } });
    const log = wantsLogs(context) ? context.mcpReq.log : undefined;
    const meta = context.mcpReq._meta as Record<string, unknown> | undefined;
    return this.callSkill.call(skill, args, connection, { signal: context.mcpReq.signal, reportProgress, log, meta });
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
