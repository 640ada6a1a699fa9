import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import type { AdapterStatus, BridgeToolDescriptor } from '#mcp-bridge/index.js';
import { isoDateTime, jsonSchemaDocument } from '../openapi/wire-types.js';

/** The wire view of GET /v1/tools (tools.controller.ts returns exactly this). */

const adapterToolView = apiComponent(
  'AdapterTool',
  z.object({
    tool_id: z.string().describe('`<adapter>.<tool>`'),
    adapter: z.string(),
    name: z.string(),
    title: z.string().nullable(),
    capability: z.string().nullable(),
    description: z.string(),
    category: z
      .string()
      .nullable()
      .describe('Seed 001 §3.2: `computation`, `verification`, `conversion`, … (null when the adapter does not say)'),
    timeout_seconds: z.number().int().positive().nullable().describe('Longest one call may run on the adapter (null when it does not say)'),
    idempotent: z.boolean().describe("A second call with the same input is harmless (MCP's `idempotentHint`)"),
    requires_feature_flag: z
      .string()
      .nullable()
      .describe('A feature flag the platform must enable (FEATURE_FLAGS) for the tool to be called'),
    available: z.boolean(),
    disabled: z
      .boolean()
      .describe('Switched off by TOOLS_DISABLED, or its feature flag is not in FEATURE_FLAGS: a call answers `{ disabled: true, reason }`'),
    unavailable_reason: z.string().nullable(),
    input_schema: jsonSchemaDocument,
    output_schema: jsonSchemaDocument.nullable(),
  }),
  'A tool of a configured adapter',
);

const adapterStatusView = apiComponent(
  'AdapterStatus',
  z.object({
    adapter: z.string(),
    url: z.string(),
    reachable: z.boolean(),
    tool_count: z.number().int(),
    checked_at: isoDateTime,
    error: z.string().nullable(),
  }),
  'Reachability of one configured adapter',
);

export const adapterToolListView = apiComponent(
  'ToolList',
  z.object({ items: z.array(adapterToolView), adapters: z.array(adapterStatusView) }),
);

export type AdapterToolListView = z.input<typeof adapterToolListView>;

/** GET /v1/tools's body from the bridge's listing. */
export function presentAdapterTools({
  tools,
  adapters,
}: {
  tools: BridgeToolDescriptor[];
  adapters: AdapterStatus[];
}): AdapterToolListView {
  return {
    items: tools.map((tool) => ({
      tool_id: tool.toolId,
      adapter: tool.adapter,
      name: tool.name,
      title: tool.title,
      capability: tool.capability,
      description: tool.description,
      category: tool.category,
      timeout_seconds: tool.timeoutSeconds,
      idempotent: tool.idempotent,
      requires_feature_flag: tool.requiresFeatureFlag,
      available: tool.available,
      disabled: tool.disabled,
      unavailable_reason: tool.unavailableReason,
      input_schema: tool.inputSchema,
      output_schema: tool.outputSchema,
    })),
    adapters: adapters.map((adapter) => ({
      adapter: adapter.adapter,
      url: adapter.url,
      reachable: adapter.reachable,
      tool_count: adapter.toolCount,
      checked_at: adapter.checkedAt,
      error: adapter.error,
    })),
  };
}
