import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { CursorInvalid, decodeCursor, encodeCursor } from '#contracts/index.js';

/** The key a cursor names, or undefined for the first page; a forged or malformed cursor is -32602. */
export function decodeMcpCursor(cursor: unknown): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    return decodeCursor(cursor);
  } catch (error) {
    if (error instanceof CursorInvalid) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${error.message}`);
    throw error;
  }
}

/**
 * One page of `items` (sorted by `keyOf`) after the key `cursor` names: the one paging rule of the MCP
 * lists (prompts, skills, directory reads); `nextCursor` names the last key returned.
 */
export function mcpPage<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: unknown,
  size: number,
): { page: T[]; nextCursor?: string } {
  const after = decodeMcpCursor(cursor);
  const start = after === undefined ? 0 : items.findIndex((item) => keyOf(item) > after);
  if (start < 0) return { page: [] };
  const page = items.slice(start, start + size);
  const last = page[page.length - 1];
  return start + size < items.length && last !== undefined ? { page, nextCursor: encodeCursor(keyOf(last)) } : { page };
}
