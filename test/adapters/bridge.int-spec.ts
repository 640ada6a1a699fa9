// The MCP bridge against real adapters: listing and capabilities, availability and its cache, tool-call events,
// a missing program, and an adapter process that is killed and started again on the same port.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpToolError, isDisabledTool } from '@skill-registry/sdk';
import { McpBridgeClient, missingTools } from '#mcp-bridge/index.js';
import type { ToolCallEvent } from '#mcp-bridge/index.js';
import { calculixAdapter } from '../../apps/adapters/calculix/src/adapter.js';
import { gmshAdapter } from '../../apps/adapters/gmsh/src/adapter.js';
import { spiceAdapter } from '../../apps/adapters/spice/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { freePort, isolateScratchRoot, processesUnder, startAdapterProcess, startInProcess, waitUntil } from './support.js';

const OP_CALL = { netlist: 'divider\nV1 in 0 DC 10\nR1 in out 1k\nR2 out 0 1k\n', analyses: [{ type: 'op' }], vectors: ['v(out)'] };
const ENDLESS_CALL = {
  netlist: 'endless\nV1 a 0 PULSE(0 1 0 1n 1n 1u 2u)\nR1 a 0 1k\n',
  analyses: [{ type: 'tran', step_s: 1e-3, stop_s: 5, max_step_s: 1e-10 }],
  vectors: ['v(a)'],
};

const scratchRoot = isolateScratchRoot();
const adapters: Record<string, RunningAdapter> = {};

beforeAll(async () => {
  adapters.spice = await startInProcess(spiceAdapter());
  adapters.calculix = await startInProcess(calculixAdapter());
  adapters.gmsh = await startInProcess(gmshAdapter());
  adapters.spiceMissing = await startInProcess(spiceAdapter({ executable: '/nonexistent/bin/ngspice' }));
});

afterAll(async () => {
  await Promise.all(Object.values(adapters).map((adapter) => adapter.close()));
});

function bridgeFor(names: string[], options: { availabilityTtlMs?: number; disabledTools?: string[] } = {}): McpBridgeClient {
  return new McpBridgeClient({ adapters: new Map(names.map((name) => [name.replace('Missing', ''), adapters[name].url])), ...options });
}

/** Paths of object properties in a JSON Schema that have no description. */
function undescribed(schema: any, path = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const missing: string[] = [];
  for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
    if (!property.description) missing.push(`${path}.${name}`);
    missing.push(...undescribed(property, `${path}.${name}`));
  }
  for (const key of ['items', 'additionalProperties'])
    if (typeof schema[key] === 'object') missing.push(...undescribed(schema[key], `${path}[]`));
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    for (const [i, branch] of (schema[key] ?? []).entries()) missing.push(...undescribed(branch, `${path}|${i}`));
  return missing;
}

describe('listing tools', () => {
  it('lists every adapter tool with its capability, availability and a fully described input schema', async () => {
    const bridge = bridgeFor(['spice', 'calculix', 'gmsh']);
    try {
      const tools = await bridge.listTools();
      expect(tools.map((tool) => [tool.toolId, tool.capability, tool.available])).toEqual([
        ['calculix.run_fea', 'stress_analysis', true],
        ['calculix.run_thermal', 'thermal_analysis', true],
        ['gmsh.export_mesh', 'mesh_generation', true],
        ['gmsh.measure', 'geometry_measurement', true],
        ['spice.simulate', 'circuit_simulation', true],
      ]);
      for (const tool of tools) {
        expect(tool.description.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe('object');
        expect(undescribed(tool.inputSchema)).toEqual([]);
        expect(tool.outputSchema).not.toBeNull();
      }
      expect((await bridge.listTools('stress_analysis')).map((tool) => tool.toolId)).toEqual(['calculix.run_fea']);
      expect(await bridge.listTools('no_such_capability')).toEqual([]);
      expect(await bridge.getTool('gmsh.measure')).toMatchObject({ adapter: 'gmsh', name: 'measure', available: true });
    } finally {
      await bridge.close();
    }
  });

  it('reports the tools of an adapter whose program is missing as unavailable, and never fakes a result', async () => {
    const health = await (await fetch(adapters.spiceMissing.healthUrl)).json();
    expect(health).toMatchObject({
      status: 'degraded',
      programs: [{ name: 'ngspice', found: false, version: null }],
      tools: [{ name: 'simulate', available: false }],
    });

    const bridge = bridgeFor(['spiceMissing']);
    try {
      expect(await bridge.isAvailable('spice.simulate')).toBe(false);
      const [tool] = await bridge.listTools();
      expect(tool).toMatchObject({ toolId: 'spice.simulate', available: false });
      expect(tool.unavailableReason).toContain("ngspice is not installed (Debian package 'ngspice')");
      const error = (await bridge.invoke('spice.simulate', OP_CALL).catch((e: unknown) => e)) as McpToolError;
      expect(error).toBeInstanceOf(McpToolError);
      expect(error.message).toContain('ngspice is not installed');
      expect((error.details.adapterError as any).error.code).toBe('PROGRAM_NOT_INSTALLED');
    } finally {
      await bridge.close();
    }
  });

  it('names what is wrong with a tool id', async () => {
    const bridge = bridgeFor(['spice']);
    try {
      const unknownAdapter = (await bridge.invoke('kicad.run_erc', {}).catch((e: unknown) => e)) as McpToolError;
      expect(unknownAdapter.message).toContain("no adapter 'kicad' is configured in TOOL_ADAPTERS (configured: spice)");
      const unknownTool = (await bridge.invoke('spice.transient', {}).catch((e: unknown) => e)) as McpToolError;
      expect(unknownTool).toBeInstanceOf(McpToolError);
      expect(unknownTool.message).toContain('Tool transient not found');
      const badParams = (await bridge.invoke('spice.simulate', { netlist: 42 }).catch((e: unknown) => e)) as McpToolError;
      expect(badParams).toBeInstanceOf(McpToolError);
      expect(badParams.message).toContain('Input validation error');
      expect(await bridge.isAvailable('spice.transient')).toBe(false);
      expect(await bridge.isAvailable('nodot')).toBe(false);
    } finally {
      await bridge.close();
    }
  });
});

describe("seed 001 §3's tool fields and feature flags", () => {
  it("carries each tool's category, timeout, idempotence and feature flag in the listing", async () => {
    const bridge = bridgeFor(['spice', 'calculix', 'gmsh']);
    try {
      const fields = (await bridge.listTools()).map((tool) => [tool.toolId, tool.category, tool.idempotent, tool.requiresFeatureFlag]);
      expect(fields).toEqual([
        ['calculix.run_fea', 'computation', true, null],
        ['calculix.run_thermal', 'computation', true, null],
        ['gmsh.export_mesh', 'conversion', true, null],
        ['gmsh.measure', 'computation', true, null],
        ['spice.simulate', 'computation', true, null],
      ]);
      for (const tool of await bridge.listTools()) expect(tool.timeoutSeconds).toBeGreaterThan(0);
    } finally {
      await bridge.close();
    }
  });

  it('disables a tool whose flag FEATURE_FLAGS does not enable: a structured answer for the handler, not a missing tool', async () => {
    const base = spiceAdapter();
    const flagged = await startInProcess({
      ...base,
      tools: base.tools.map((tool) => ({ ...tool, requiresFeatureFlag: 'enable_beta_spice' })),
    });
    const url = flagged.url;
    const off = new McpBridgeClient({ adapters: new Map([['spice', url]]) });
    const on = new McpBridgeClient({ adapters: new Map([['spice', url]]), featureFlags: ['enable_beta_spice'] });
    try {
      // First thing on a fresh bridge: the flag is learnt from the listing that the availability check reads.
      expect(await missingTools(off, [{ tool_id: 'spice.simulate' }])).toEqual([]);
      const answer = await off.invoke('spice.simulate', OP_CALL);
      expect(answer).toEqual({
        disabled: true,
        reason: "tool 'spice.simulate' requires feature flag 'enable_beta_spice', which FEATURE_FLAGS does not enable",
      });
      expect(off.isDisabled('spice.simulate')).toBe(true);
      expect(await off.isAvailable('spice.simulate')).toBe(false);
      expect((await off.getTool('spice.simulate'))?.requiresFeatureFlag).toBe('enable_beta_spice');
      const result = await on.invoke('spice.simulate', OP_CALL);
      expect(result.disabled).toBeUndefined();
      expect(on.isDisabled('spice.simulate')).toBe(false);
    } finally {
      await off.close();
      await on.close();
      await flagged.close();
    }
  });

  it('tells a registration check whether a configured adapter declares a tool', async () => {
    const port = await freePort();
    const bridge = new McpBridgeClient({
      adapters: new Map([
        ['spice', adapters.spice.url],
        ['calculix', `http://127.0.0.1:${port}/mcp`],
      ]),
      connectTimeoutMs: 2000,
    });
    try {
      expect((await bridge.declaration('spice.simulate')).state).toBe('declared');
      expect(await bridge.declaration('spice.transient')).toEqual({
        state: 'not_declared',
        detail: "adapter 'spice' declares no tool 'transient' (it declares: simulate)",
      });
      expect((await bridge.declaration('calculix.run_fea')).state).toBe('adapter_unreachable');
      expect((await bridge.declaration('kicad.run_erc')).detail).toBe(
        "no configured adapter is named 'kicad' (configured: spice, calculix)",
      );
      expect((await bridge.declaration('nodot')).state).toBe('no_such_adapter');
    } finally {
      await bridge.close();
    }
  });
});

describe('tool-call events', () => {
  it('reports tool_invoked and tool_completed for every call of an execution, including failures', async () => {
    const bridge = bridgeFor(['spice'], { disabledTools: ['spice.simulate_disabled'] });
    const events: ToolCallEvent[] = [];
    const execution = bridge.forExecution((event) => events.push(event), { skillName: 'run_circuit_sim' });
    try {
      const result = (await execution.invoke('spice.simulate', OP_CALL)) as any;
      expect(result.analyses[0].vectors['v(out)'][0]).toBeCloseTo(5, 9);
      await execution.invoke('spice.simulate', { ...OP_CALL, vectors: ['v(nowhere)'] }).catch(() => undefined);
      // Seed 001 §3.3: a disabled tool answers a structured result instead of raising; the handler decides.
      const disabled = await execution.invoke('spice.simulate_disabled', {});
      expect(disabled).toEqual({ disabled: true, reason: "tool 'spice.simulate_disabled' is disabled by TOOLS_DISABLED" });
      expect(isDisabledTool(disabled)).toBe(true);
      expect(isDisabledTool(result)).toBe(false);

      expect(events.map((event) => [event.type, event.toolId, event.ok, event.error?.code])).toEqual([
        ['tool_invoked', 'spice.simulate', undefined, undefined],
        ['tool_completed', 'spice.simulate', true, undefined],
        ['tool_invoked', 'spice.simulate', undefined, undefined],
        ['tool_completed', 'spice.simulate', false, 'TOOL_ERROR'],
        ['tool_invoked', 'spice.simulate_disabled', undefined, undefined],
        ['tool_completed', 'spice.simulate_disabled', true, undefined],
      ]);
      expect(events.map((event) => event.disabled)).toEqual([undefined, undefined, undefined, undefined, undefined, true]);
      expect(events[1].durationMs).toBeGreaterThan(0);
      expect(events[3].error?.message).toContain('no such vector');
    } finally {
      await bridge.close();
    }
  });

  it('keeps calling when the listener throws, and uses the execution signal', async () => {
    const bridge = bridgeFor(['spice']);
    const controller = new AbortController();
    const execution = bridge.forExecution(
      () => {
        throw new Error('listener bug');
      },
      { signal: controller.signal },
    );
    try {
      await expect(execution.invoke('spice.simulate', OP_CALL)).resolves.toBeDefined();
      setTimeout(() => controller.abort(), 200);
      const error = await execution.invoke('spice.simulate', ENDLESS_CALL).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe('TOOL_TIMEOUT');
      expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 3_000)).toBe(true);
    } finally {
      await bridge.close();
    }
  });
});

describe('an adapter that goes away and comes back', () => {
  it('is noticed, then used again by the same bridge once restarted on the same port', async () => {
    const port = await freePort();
    const env = { SCRATCH_ROOT: scratchRoot, MAX_RUN_SECONDS: '2' };
    let adapter = await startAdapterProcess('spice', port, env);
    // A long TTL shows both paths: the cached listing is served until a failed call marks the adapter unreachable.
    const bridge = new McpBridgeClient({ adapters: new Map([['spice', adapter.url]]), availabilityTtlMs: 60_000 });
    try {
      expect(await bridge.isAvailable('spice.simulate')).toBe(true);
      expect(((await bridge.invoke('spice.simulate', OP_CALL)) as any).analyses[0].vectors['v(out)'][0]).toBeCloseTo(5, 9);

      // Killed in the middle of a call: the caller gets TOOL_ERROR at once, not a hang.
      const midCall = bridge.invoke('spice.simulate', ENDLESS_CALL, { timeoutMs: 20_000 }).catch((e: unknown) => e);
      expect(await waitUntil(() => processesUnder(scratchRoot).some((p) => p.name === 'ngspice'), 5_000, 20)).toBe(true);
      await adapter.kill();
      const error = (await midCall) as McpToolError;
      expect(error).toBeInstanceOf(McpToolError);
      expect(error.code).toBe('TOOL_ERROR');
      // ngspice does not outlive its adapter: it dies on its broken output pipe, or at the latest at the adapter's
      // limit (MAX_RUN_SECONDS=2, enforced by coreutils timeout with 2 s of grace).
      expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 8_000, 100)).toBe(true);

      const down = (await bridge.invoke('spice.simulate', OP_CALL).catch((e: unknown) => e)) as McpToolError;
      expect(down).toBeInstanceOf(McpToolError);
      expect(down.message).toContain("adapter 'spice' is unreachable");
      expect(await bridge.isAvailable('spice.simulate')).toBe(false);
      expect((await bridge.listTools())[0]).toMatchObject({ toolId: 'spice.simulate', available: false });

      adapter = await startAdapterProcess('spice', port, env);
      expect(await waitUntil(() => bridge.isAvailable('spice.simulate'), 10_000, 100)).toBe(true);
      expect(((await bridge.invoke('spice.simulate', OP_CALL)) as any).analyses[0].vectors['v(out)'][0]).toBeCloseTo(5, 9);
    } finally {
      await bridge.close();
      await adapter.kill();
    }
  });
});
