import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';
import { jsonObject } from '../openapi/wire-types.js';

/** JSON-RPC 2.0 as the MCP endpoint speaks it (the MCP SDK owns the exchange; these describe its envelope). */

const id = z.union([z.string(), z.number()]);

export const jsonRpcMessageView = apiComponent(
  'JsonRpcMessage',
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: id.nullable().optional(),
    method: z.string().optional(),
    params: jsonObject.optional(),
    result: jsonObject.optional(),
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  }),
  'A JSON-RPC 2.0 request, notification, response or error (MCP messages: initialize, tools/list, tools/call, ...)',
);

export const jsonRpcBodyView = apiComponent(
  'JsonRpcBody',
  z.union([jsonRpcMessageView, z.array(jsonRpcMessageView)]),
  'One JSON-RPC message or a batch',
);
