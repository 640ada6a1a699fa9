import { describe, expect, it } from '@jest/globals';
import { BridgeConfigError, parseDisabledTools, parseToolAdapters, splitToolId } from './config.js';

describe('parseToolAdapters', () => {
  it('maps each adapter name to its MCP endpoint', () => {
    const adapters = parseToolAdapters(
      'spice=http://127.0.0.1:7101/mcp, calculix=http://127.0.0.1:7102/mcp,gmsh=https://gmsh.internal/mcp',
    );
    expect([...adapters.keys()]).toEqual(['spice', 'calculix', 'gmsh']);
    expect(adapters.get('calculix')?.href).toBe('http://127.0.0.1:7102/mcp');
  });

  it('gives no adapters for an empty or missing value', () => {
    expect(parseToolAdapters('').size).toBe(0);
    expect(parseToolAdapters(undefined).size).toBe(0);
    expect(parseToolAdapters(' , ').size).toBe(0);
  });

  it.each([
    ['spice', "entry 'spice' is not of the form <adapter>=<url>"],
    ['=http://x/mcp', "entry '=http://x/mcp' is not of the form"],
    ['Spice=http://x/mcp', "adapter name 'Spice'"],
    ['spice=not a url', "entry 'spice=not a url' has an invalid URL"],
    ['spice=ftp://x/mcp', 'must use an http:// or https:// URL'],
    ['spice=http://a/mcp,spice=http://b/mcp', "adapter 'spice' is configured twice"],
  ])('refuses %p naming the bad entry', (raw, message) => {
    expect(() => parseToolAdapters(raw)).toThrow(BridgeConfigError);
    expect(() => parseToolAdapters(raw)).toThrow(message);
    expect(() => parseToolAdapters(raw)).toThrow(/^TOOL_ADAPTERS: /);
  });
});

describe('parseDisabledTools', () => {
  it('reads comma-separated tool ids', () => {
    expect([...parseDisabledTools('calculix.run_thermal, gmsh.measure')]).toEqual(['calculix.run_thermal', 'gmsh.measure']);
    expect(parseDisabledTools('').size).toBe(0);
  });

  it('refuses an entry that is not <adapter>.<tool>', () => {
    expect(() => parseDisabledTools('calculix.run_fea,run_thermal')).toThrow("TOOLS_DISABLED: 'run_thermal' is not a tool id");
  });
});

describe('splitToolId', () => {
  it('splits at the first dot', () => {
    expect(splitToolId('calculix.run_fea')).toEqual({ adapter: 'calculix', tool: 'run_fea' });
    expect(splitToolId('run_fea')).toBeNull();
    expect(splitToolId('.x')).toBeNull();
    expect(splitToolId('x.')).toBeNull();
  });
});
