import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { McpToolList } from './mcp-tool-list.js';
import { McpToolCalls } from './mcp-tool-calls.js';
import { McpTaskMethods } from '../mcp-tasks/mcp-task-methods.js';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { RegistrySkillSource } from '../mcp-skills/registry-skill-source.js';
import { McpPrompts } from '../mcp-skills/mcp-prompts.js';
import { McpSkillResources } from '../mcp-skills/mcp-skill-resources.js';
import { McpTwinResources } from '../twin/mcp-twin-resources.js';

const MCP_SERVER_INFO = { name: 'skill-registry', title: 'Skill Registry', version: '1.0.0' };

const INSTRUCTIONS =
  'Every ACTIVE or DEPRECATED engineering skill of this registry is a tool: call it with arguments matching its input schema ' +
  'and get its output as structured content. A DEPRECATED tool still works, but its description names the successor to ' +
  'switch to. Use search_skills to find skills by what they do and get_skill_info for the full definition of one. ' +
  'When tools/list shows load_skill, the catalog is large: find skills with search_skills or list_skills, then load_skill ' +
  'adds their tools to tools/list (unload_skill removes them). Failures come back as tool errors reading "CODE: message".';

/**
 * Builds the MCP server instance for one connection (a 2025-era session, or one 2026-era request).
 * Tools are answered from the live catalog rather than registered one by one: the set changes with
 * every promotion, deprecation and archive, and every connection sees it through its own filter and
 * what it loaded.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger(McpServerFactory.name);

  constructor(
    private readonly toolList: McpToolList,
    private readonly toolCalls: McpToolCalls,
    private readonly skills: RegistrySkillSource,
    private readonly prompts: McpPrompts,
    private readonly twinResources: McpTwinResources,
    private readonly taskMethods: McpTaskMethods,
    private readonly skillResources: McpSkillResources,
  ) {}

  create(connection: McpConnection): McpServer {
    const mcp = new McpServer(MCP_SERVER_INFO, {
      // logging: the SDK answers logging/setLevel (per session) and filters what mcpReq.log sends by it.
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        // Tasks: 2025-11-25's `tasks` on sessions, the io.modelcontextprotocol/tasks extension on 2026-07-28 requests.
        ...this.taskMethods.capabilities(connection.era),
      },
      instructions: INSTRUCTIONS,
    });
    mcp.server.setRequestHandler('tools/list', (request, context) =>
      this.toolList.page(connection.filter, this.toolCalls.loadedOf(connection, context), request.params?.cursor),
    );
    mcp.server.setRequestHandler('tools/call', (request, context) =>
      this.toolCalls.call(request.params.name, request.params.arguments ?? {}, connection, context, {
        task: (request.params as { task?: unknown }).task,
        server: mcp.server,
      }),
    );
    mcp.server.setRequestHandler('prompts/list', (request) => this.prompts.list(connection.filter, request.params?.cursor));
    mcp.server.setRequestHandler('prompts/get', (request) =>
      this.prompts.get(connection.filter, request.params.name, request.params.arguments),
    );
    // The MCP Skills extension (SEP-2640): skills/list, skills/get, skill:// resources, directory reads.
    new SkillsExtension({
      source: this.skills.for(connection.filter),
      onWarning: (warning) => this.logger.warn(`skills: ${warning.path}: ${warning.message}`),
    }).attach(mcp);
    // Work products of the digital twin: twin://<branch>/<id>.
    this.twinResources.attach(mcp, connection);
    // tasks/get, tasks/result, tasks/list, tasks/cancel, tasks/update.
    this.taskMethods.attach(mcp, connection);
    // Static resources of Agent Skills packages (seed 004), under their authors' URIs: last, as it matches any URI.
    this.skillResources.attach(mcp, connection);
    return mcp;
  }
}
