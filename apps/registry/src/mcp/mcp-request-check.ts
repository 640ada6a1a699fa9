import { isSpecType, type LoggingLevel } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * Shapes of request params that the MCP SDK checks with its wire schemas but answers with -32603
 * (Internal error) when they fail, for every method but tools/call. Checked here first so that a
 * client's mistake is -32602 (Invalid params), as the JSON-RPC and MCP specifications require.
 */
const meta = z.record(z.string(), z.unknown());
const paramsBase = z.object({ _meta: meta.optional() }).loose();
const paginated = paramsBase.extend({ cursor: z.string().optional() });
const PARAMS_BY_METHOD = new Map<string, z.ZodType>(
  Object.entries({
    initialize: paramsBase.extend({
      protocolVersion: z.string(),
      capabilities: z.record(z.string(), z.unknown()),
      clientInfo: z.object({ name: z.string(), version: z.string() }).loose(),
    }),
    'tools/list': paginated,
    'prompts/list': paginated,
    'prompts/get': paramsBase.extend({ name: z.string(), arguments: z.record(z.string(), z.string()).optional() }),
    'resources/list': paginated,
    'resources/templates/list': paginated,
    'resources/read': paramsBase.extend({ uri: z.string() }),
    'skills/list': paginated,
    'skills/get': paramsBase.extend({ uri: z.string() }),
    'resources/directory/read': paginated.extend({ uri: z.string() }),
    'logging/setLevel': paramsBase.extend({
      level: z.custom<LoggingLevel>((value) => isSpecType.LoggingLevel(value), {
        message: 'must be one of debug, info, notice, warning, error, critical, alert, emergency',
      }),
    }),
  }),
);

/** Methods whose params are not optional. */
const PARAMS_REQUIRED = new Set([
  'initialize',
  'prompts/get',
  'resources/read',
  'skills/get',
  'resources/directory/read',
  'logging/setLevel',
]);

/** A JSON-RPC error answer for the first request in `body` whose params are malformed, or null. */
export function malformedParams(body: unknown): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string } } | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!message || typeof message !== 'object') continue;
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string' || id === undefined) continue;
    // A Map: a method named `__proto__` must not find a property of Object.prototype.
    const schema = PARAMS_BY_METHOD.get(method) ?? paramsBase;
    if (params === undefined && !PARAMS_REQUIRED.has(method)) continue;
    const parsed = schema.safeParse(params);
    if (parsed.success) continue;
    const issues = parsed.error.issues.map((issue) => `params${issue.path.map((key) => `.${String(key)}`).join('')}: ${issue.message}`);
    return { jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params for ${method}: ${issues.join('; ')}` } };
  }
  return null;
}
