import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { jsonObject, jsonSchemaDocument } from '../openapi/wire-types.js';

/** The wire view of GET /v1/tool-definitions (ListToolDefinitions returns exactly this). */

const mcpToolView = apiComponent(
  'McpTool',
  z.object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string(),
    inputSchema: jsonSchemaDocument,
    outputSchema: jsonSchemaDocument.optional(),
    annotations: z.object({
      title: z.string().optional(),
      readOnlyHint: z.boolean(),
      destructiveHint: z.boolean(),
      idempotentHint: z.boolean(),
      openWorldHint: z.boolean(),
    }),
    execution: z.object({ taskSupport: z.enum(['forbidden', 'optional', 'required']) }).describe('MCP tasks (2025-11-25)'),
    _meta: jsonObject.describe(
      '`skill-registry/skill`: version, status, domain, agent, phase, tags, timeout_seconds, task_support, group; `dcc.deferred_hint` for a defer-loading tool',
    ),
  }),
  'An MCP `Tool`, as tools/list on /mcp shows it',
);

const openAiToolView = apiComponent(
  'OpenAiFunctionTool',
  z.object({
    type: z.literal('function'),
    function: z.object({ name: z.string(), description: z.string(), parameters: jsonSchemaDocument, strict: z.boolean() }),
  }),
  'An OpenAI Chat Completions function tool',
);

const anthropicToolView = apiComponent(
  'AnthropicTool',
  z.object({ name: z.string(), description: z.string(), input_schema: jsonSchemaDocument }),
  'An Anthropic Messages API (client) tool',
);

export const toolDefinitionsView = apiComponent(
  'ToolDefinitions',
  z.discriminatedUnion('format', [
    z.object({ format: z.literal('mcp'), tools: z.array(mcpToolView) }),
    z.object({ format: z.literal('anthropic'), tools: z.array(anthropicToolView) }),
    z.object({
      format: z.literal('openai'),
      tools: z.array(openAiToolView),
      non_strict: z
        .array(z.object({ name: z.string(), reasons: z.array(z.string()) }))
        .describe('Tools exported with `strict: false`, and which strict-mode rules their input schema breaks'),
    }),
  ]),
  'ACTIVE and DEPRECATED skills as tool definitions of one agent framework',
);
