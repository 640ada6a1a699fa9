import { describe, expect, it } from '@jest/globals';
import { failsOnlyOnRequiredTools, requiredToolIssues } from './required-tools-check.js';

const ids = ['spice.simulate', 'spice.nosuch', 'calculix.run_fea', 'kicad.run_drc'];

describe('requiredToolIssues (seed 001 §3.1 at registration)', () => {
  it('passes declared tools, warns for a down adapter, refuses an undeclared tool or an unknown adapter, each at its pointer', () => {
    const issues = requiredToolIssues(ids, [
      { toolId: 'spice.simulate', state: 'declared', detail: '' },
      { toolId: 'spice.nosuch', state: 'not_declared', detail: "adapter 'spice' declares no tool 'nosuch'" },
      { toolId: 'calculix.run_fea', state: 'adapter_unreachable', detail: "adapter 'calculix' is unreachable: ECONNREFUSED" },
      { toolId: 'kicad.run_drc', state: 'no_such_adapter', detail: "no configured adapter is named 'kicad'" },
    ]);
    expect(issues.map((issue) => [issue.severity, issue.category, issue.path])).toEqual([
      ['error', 'tools', '/tools_required/1/tool_id'],
      ['warning', 'tools', '/tools_required/2/tool_id'],
      ['error', 'tools', '/tools_required/3/tool_id'],
    ]);
    expect(issues[0].message).toContain("declares no tool 'nosuch'");
    expect(issues[1].message).toContain('ECONNREFUSED');
  });

  it('says once, as an info, that nothing was checked when the registry has no adapters', () => {
    const issues = requiredToolIssues(ids, null);
    expect(issues).toEqual([expect.objectContaining({ severity: 'info', category: 'tools', path: '/tools_required' })]);
  });

  it('has nothing to say of a package that requires no tools', () => {
    expect(requiredToolIssues([], null)).toEqual([]);
  });

  it('tells a report held back only by required tools from one with other errors', () => {
    const tools = { severity: 'error', category: 'tools' } as const;
    expect(failsOnlyOnRequiredTools([tools, { severity: 'warning', category: 'docs' }])).toBe(true);
    expect(failsOnlyOnRequiredTools([tools, { severity: 'error', category: 'schema' }])).toBe(false);
    expect(failsOnlyOnRequiredTools([{ severity: 'warning', category: 'tools' }])).toBe(false);
  });
});
