import { ProtocolError } from '@modelcontextprotocol/server';
import { encodeCursor } from '#contracts/index.js';
import { mcpPage } from './mcp-paging.js';

describe('MCP list paging', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];
  const key = (item: string) => item;

  it('pages after the key a cursor names, with a cursor for the next page only when there is one', () => {
    const first = mcpPage(items, key, undefined, 2);
    expect(first.page).toEqual(['a', 'b']);
    const second = mcpPage(items, key, first.nextCursor, 2);
    expect(second.page).toEqual(['c', 'd']);
    expect(mcpPage(items, key, second.nextCursor, 2)).toEqual({ page: ['e'] });
    expect(mcpPage(items, key, encodeCursor('z'), 2)).toEqual({ page: [] });
  });

  it('answers a forged or non-string cursor with -32602, never an internal error (found by the fuzz drill)', () => {
    for (const cursor of ['e7224262-ffe8-8fff-8d80-338e1b2cc757', 7, {}]) {
      expect(() => mcpPage(items, key, cursor, 2)).toThrow(ProtocolError);
      try {
        mcpPage(items, key, cursor, 2);
      } catch (error) {
        expect((error as ProtocolError).code).toBe(-32602);
      }
    }
  });
});
