import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ListToolDefinitions } from './list-tool-definitions.js';
import { TOOL_DEFINITION_FORMATS } from './tool-definition-formats.js';
import { parseToolDefinitionsQuery } from './tool-definitions.dto.js';

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
  @ApiQuery({ name: 'format', required: true, enum: TOOL_DEFINITION_FORMATS })
  @ApiQuery({ name: 'domain', required: false, description: 'Only skills of this engineering domain' })
  @ApiQuery({ name: 'agent', required: false, description: 'Only skills owned by this agent' })
  @ApiQuery({ name: 'phase', required: false, type: Number, description: 'Only skills usable at this phase (phase ≤ n, 1–3)' })
  @ApiQuery({ name: 'tag', required: false, type: [String], description: 'Repeatable; every tag must match' })
  list(@Query() rawQuery: Record<string, unknown>) {
    const query = parseToolDefinitionsQuery(rawQuery);
    return this.toolDefinitions.list(query.format, { domain: query.domain, agent: query.agent, phase: query.phase, tags: query.tag });
  }
}
