import { malformedParams } from './mcp-request-check.js';

describe('MCP request params checked before the SDK', () => {
  it('answers -32602 for a non-string tools/list cursor and a malformed initialize, naming the field', () => {
    expect(malformedParams({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 123 } })).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringContaining('params.cursor') },
    });
    expect(malformedParams({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: true } })?.error.code).toBe(-32602);
    expect(malformedParams([{ jsonrpc: '2.0', id: 3, method: 'ping', params: 'x' }])?.id).toBe(3);
  });

  it('answers -32602 for malformed prompts, resources and skills (SEP-2640) params, found by the fuzz drill', () => {
    const refused = (method: string, params: unknown) => malformedParams({ jsonrpc: '2.0', id: 9, method, params })?.error;
    expect(refused('prompts/get', { name: 'x', arguments: null })).toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.arguments'),
    });
    expect(refused('prompts/get', undefined)?.code).toBe(-32602);
    expect(refused('resources/read', { uri: {} })).toMatchObject({ code: -32602, message: expect.stringContaining('params.uri') });
    expect(refused('resources/list', { cursor: true })?.code).toBe(-32602);
    expect(refused('skills/get', { uri: 1 })?.code).toBe(-32602);
    expect(refused('resources/directory/read', { uri: 'skill://a/b', cursor: 7 })?.code).toBe(-32602);
    expect(refused('skills/list', { cursor: 'abc' })).toBeUndefined();
    expect(refused('prompts/get', { name: 'x', arguments: { a: 'b' } })).toBeUndefined();
  });

  it('answers -32602 for a logging/setLevel level that is not one of the MCP levels, or none', () => {
    const refused = (params: unknown) => malformedParams({ jsonrpc: '2.0', id: 6, method: 'logging/setLevel', params })?.error;
    expect(refused({ level: 'loud' })).toMatchObject({ code: -32602, message: expect.stringContaining('params.level') });
    expect(refused({ level: 3 })?.code).toBe(-32602);
    expect(refused({})?.code).toBe(-32602);
    expect(refused(undefined)?.code).toBe(-32602);
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      expect(refused({ level })).toBeUndefined();
  });

  it('lets well-formed requests, notifications and unknown methods through (the SDK answers those)', () => {
    expect(malformedParams({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'abc' } })).toBeNull();
    expect(malformedParams({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeNull();
    expect(malformedParams({ jsonrpc: '2.0', id: 4, method: 'prompts/list' })).toBeNull();
  });

  it('treats method names that are Object.prototype properties as ordinary methods', () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(() => malformedParams({ jsonrpc: '2.0', id: 5, method, params: { _meta: [] } })).not.toThrow();
      expect(malformedParams({ jsonrpc: '2.0', id: 5, method, params: { _meta: [] } })?.error.code).toBe(-32602);
    }
  });
});
