import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
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
    available: z.boolean(),
    disabled: z.boolean().describe('Switched off by TOOLS_DISABLED'),
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
