import { McpToolError } from '@skill-registry/sdk';
import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * The JSON a tool returned: its `structuredContent` when that is an object, else its text content parsed as a
 * JSON object, else `{ text }`. A result flagged `isError` becomes an McpToolError carrying the adapter's message
 * and, when the adapter gave one, its structured error as `details.adapterError`.
 */
export function toolResultToRecord(toolId: string, result: CallToolResult): Record<string, unknown> {
  const text = textOf(result);
  const structured = isPlainObject(result.structuredContent) ? result.structuredContent : undefined;
  if (result.isError) {
    const message = messageOf(structured) ?? (text.trim() || 'the tool reported an error without a message');
    throw new McpToolError(toolId, message, structured ? { adapterError: structured } : {});
  }
  if (structured) return structured;
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      /* plain text result */
    }
    return { text };
  }
  return {};
}

function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter(
      (block): block is { type: 'text'; text: string } => block.type === 'text' && typeof (block as { text?: unknown }).text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}

/** `error.message` or `message` of a structured error, as adapters of this project and most others shape it. */
function messageOf(structured: Record<string, unknown> | undefined): string | undefined {
  if (!structured) return undefined;
  const error = structured.error;
  if (isPlainObject(error) && typeof error.message === 'string' && error.message) return error.message;
  if (typeof error === 'string' && error) return error;
  if (typeof structured.message === 'string' && structured.message) return structured.message;
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
