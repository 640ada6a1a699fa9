/**
 * Raw JSON-RPC over the MCP endpoint for what no SDK client speaks yet: the 2026-07-28 per-request protocol
 * with the tasks extension (SEP-2663), whose `resultType: "task"` the SDK v2 client refuses.
 */

const PROTOCOL = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Which params field the `Mcp-Name` header mirrors (SEP-2243, and SEP-2663 for tasks). */
const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export interface ModernOptions {
  token?: string;
  /** Declare the tasks extension in the request's client capabilities. */
  tasks?: boolean;
  /** More `_meta` keys (e.g. the toolset of progressive exposure). */
  meta?: Record<string, unknown>;
}

export interface JsonRpcAnswer {
  status: number;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

let nextId = 1;

/** One 2026-07-28 request (the `_meta` envelope, the standard headers), its JSON-RPC answer (JSON or SSE). */
export async function modernRequest(
  baseUrl: string,
  method: string,
  params: Record<string, unknown>,
  options: ModernOptions = {},
): Promise<JsonRpcAnswer> {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL,
    'mcp-method': method,
  };
  const nameField = NAME_FIELD[method];
  if (nameField && typeof params[nameField] === 'string') headers['mcp-name'] = params[nameField] as string;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { ...options.meta, ...envelope } } };
  const response = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  const message = (response.headers.get('content-type') ?? '').includes('text/event-stream') ? lastSseMessage(text) : JSON.parse(text);
  return { status: response.status, result: message?.result, error: message?.error };
}

/** The JSON-RPC response among an SSE body's `data:` lines (the last message; notifications come before it). */
function lastSseMessage(text: string): any {
  const messages = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)));
  return messages.reverse().find((message) => 'result' in message || 'error' in message);
}
