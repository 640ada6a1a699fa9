import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module.js';
import { McpSkillsModule } from '../mcp-skills/mcp-skills.module.js';
import { McpTasksModule } from '../mcp-tasks/mcp-tasks.module.js';
import { SearchModule } from '../search/search.module.js';
import { SkillsModule } from '../skills/skills.module.js';
import { ToolDefinitionsModule } from '../tool-definitions/tool-definitions.module.js';
import { CallSkillTool } from '../executions/call-skill-tool.js';
import { McpToolCalls } from './mcp-tool-calls.js';
import { SkillLoadingTools } from './skill-loading-tools.js';
import { DiscoveryTools } from '../search/discovery-tools.js';
import { McpController } from './mcp.controller.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { McpServerFactory } from './mcp-server-factory.js';
import { McpSessions } from './mcp-sessions.js';
import { McpToolList } from './mcp-tool-list.js';
import { McpTwinResources } from '../twin/mcp-twin-resources.js';

/** The registry as an MCP server: skills as tools over Streamable HTTP at /mcp, on the same use-cases as REST. */
@Module({
  imports: [ToolDefinitionsModule, SearchModule, SkillsModule, ExecutionsModule, McpSkillsModule, McpTasksModule],
  controllers: [McpController],
  providers: [
    McpToolList,
    DiscoveryTools,
    SkillLoadingTools,
    McpToolCalls,
    CallSkillTool,
    McpServerFactory,
    McpSessions,
    McpEndpoint,
    McpTwinResources,
  ],
})
export class McpModule {}
