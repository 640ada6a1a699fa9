import { storableVersion } from './storable-text.js';

describe('storableVersion', () => {
  it('leaves storable text as it is (the same object)', () => {
    const version = { description: 'Checks stress — é, 😀', tags: ['a'], runtimesProbedAt: new Date(0) };
    expect(storableVersion(version, 'definition.json')).toEqual({ version, issues: [] });
    expect(storableVersion(version, 'definition.json').version).toBe(version);
  });

  it('names each field holding a NUL or a lone surrogate, as the package spells it, and replaces the characters', () => {
    const version = {
      description: 'bad \ud800 text',
      toolsRequired: [{ tool_id: 'x\u0000y' }],
      examples: [{ input: { 'k\udc00': 1, 'a/b': 'ok', fine: 'z\udfff' } }],
      bytes: new Uint8Array([0]),
    };
    const { version: cleaned, issues } = storableVersion(version, 'definition.json');
    expect(issues.map((issue) => [issue.severity, issue.file, issue.path])).toEqual([
      ['error', 'definition.json', '/description'],
      ['error', 'definition.json', '/tools_required/0/tool_id'],
      ['error', 'definition.json', '/examples/0/input/k\uFFFD'],
      ['error', 'definition.json', '/examples/0/input/fine'],
    ]);
    expect(cleaned).toEqual({
      description: 'bad \uFFFD text',
      toolsRequired: [{ tool_id: 'x\uFFFDy' }],
      examples: [{ input: { 'k\uFFFD': 1, 'a/b': 'ok', fine: 'z\uFFFD' } }],
      bytes: new Uint8Array([0]),
    });
    expect(JSON.stringify(cleaned)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });
});
