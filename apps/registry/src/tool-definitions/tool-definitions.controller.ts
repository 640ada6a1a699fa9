import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ListToolDefinitions } from './list-tool-definitions.js';
import { ApiJson, ApiQueryParams } from '../openapi/api-decorators.js';
import { parseToolDefinitionsQuery, toolDefinitionsQuery } from './tool-definitions.dto.js';
import { toolDefinitionsView } from './tool-definitions.views.js';

@ApiTags('tool-definitions')
@Controller('v1/tool-definitions')
export class ToolDefinitionsController {
  constructor(private readonly toolDefinitions: ListToolDefinitions) {}

  @Get()
  @ApiOperation({
    summary: 'ACTIVE and DEPRECATED skills as tool definitions for an agent framework',
    description:
      '`tools` is handed to the framework as it is: `openai` → Chat Completions function tools (`strict: true` only when the ' +
      "input schema already meets OpenAI's strict-mode rules; `non_strict` says why the others are not), `anthropic` → Messages " +
      'API tools (`input_schema`), `mcp` → MCP `Tool` objects as tools/list returns them. Schemas are the stored JSON Schemas ' +
      '(2020-12), unchanged; DEPRECATED skills say so in their description.',
  })
  @ApiQueryParams(toolDefinitionsQuery, {
    format: 'The agent framework the definitions are for',
    domain: 'Only skills of this engineering domain',
    agent: 'Only skills owned by this agent',
    phase: 'Only skills usable at this phase (phase ≤ n, 1–3)',
    tag: 'Repeatable; every tag must match',
  })
  @ApiJson(200, toolDefinitionsView, { description: 'The tool definitions in the asked format' })
  // Typed by the MCP SDK's Tool (whose members are all optional), so held to the view by the contract test rather than by tsc.
  list(@Query() rawQuery: Record<string, unknown>) {
    const query = parseToolDefinitionsQuery(rawQuery);
    return this.toolDefinitions.list(query.format, { domain: query.domain, agent: query.agent, phase: query.phase, tags: query.tag });
  }
}
