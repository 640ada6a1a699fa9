// The spice adapter with the real ngspice, called through the MCP bridge (real MCP client over Streamable HTTP).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { McpTimeoutError, McpToolError, isDisabledTool } from '@skill-registry/sdk';
import { McpBridgeClient } from '#mcp-bridge/index.js';
import { spiceAdapter } from '../../apps/adapters/spice/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { isolateScratchRoot, processesUnder, startInProcess, waitUntil } from './support.js';

// First-order RC low-pass: R = 1 kΩ, C = 159.155 nF, so f_c = 1/(2πRC) = 1000.0 Hz and τ = RC = 159.155 µs.
const R = 1_000;
const C = 159.155e-9;
const F_CUTOFF = 1 / (2 * Math.PI * R * C);
const TAU = R * C;
const RC_NETLIST = `RC low-pass filter
V1 in 0 DC 5 AC 1 PULSE(0 1 0 1n 1n 1 2)
R1 in out ${R}
C1 out 0 ${C}
.end
`;

const scratchRoot = isolateScratchRoot();
let adapter: RunningAdapter;
let bridge: McpBridgeClient;

beforeAll(async () => {
  adapter = await startInProcess(spiceAdapter());
  bridge = new McpBridgeClient({ adapters: new Map([['spice', adapter.url]]) });
});

afterAll(async () => {
  await bridge?.close();
  await adapter?.close();
});

describe('spice.simulate on an RC low-pass filter', () => {
  it('puts the -3 dB point at 1/(2πRC) and gives the DC operating point', async () => {
    const result = (await bridge.invoke('spice.simulate', {
      netlist: RC_NETLIST,
      analyses: [{ type: 'op' }, { type: 'ac', variation: 'dec', points: 100, start_hz: 10, stop_hz: 100_000 }],
      vectors: ['v(out)', 'i(v1)'],
    })) as any;

    // DC operating point: the capacitor is open, so v(out) = V1 = 5 V and no current flows. ngspice solves this
    // linear circuit exactly; 1e-9 V / 1e-12 A absorb its printed precision (12 digits).
    const [op, ac] = result.analyses;
    expect(op.type).toBe('op');
    expect(op.vectors['v(out)'][0]).toBeCloseTo(5, 9);
    expect(Math.abs(op.vectors['i(v1)'][0])).toBeLessThan(1e-12);

    // AC: |H(f)| = 1/sqrt(1 + (f/fc)^2) crosses 1/√2 at fc. 100 points per decade are 2.3 % apart; interpolating
    // log|H| linearly in log f between the two bracketing points is accurate to far better than the 2 % asked.
    expect(ac.scale.name).toBe('frequency');
    expect(ac.scale.unit).toBe('Hz');
    const frequencies: number[] = ac.scale.values;
    const magnitude: number[] = ac.complex_vectors['v(out)'].magnitude;
    const target = 1 / Math.SQRT2;
    const k = magnitude.findIndex((value) => value < target);
    expect(k).toBeGreaterThan(0);
    const t = (Math.log(magnitude[k - 1]) - Math.log(target)) / (Math.log(magnitude[k - 1]) - Math.log(magnitude[k]));
    const f3db = Math.exp(Math.log(frequencies[k - 1]) + t * (Math.log(frequencies[k]) - Math.log(frequencies[k - 1])));
    expect(Math.abs(f3db - F_CUTOFF) / F_CUTOFF).toBeLessThan(0.02);

    // At fc the phase is -45° and the gain -3.01 dB (same 100-points-per-decade grid: within 1° and 0.1 dB).
    const atFc = frequencies.findIndex((f) => Math.abs(f - 1000) < 1e-6);
    expect(ac.complex_vectors['v(out)'].phase_deg[atFc]).toBeCloseTo(-45, 0);
    expect(Math.abs(ac.complex_vectors['v(out)'].magnitude_db[atFc] + 3.0103)).toBeLessThan(0.1);
  });

  it('charges to 1 - 1/e of the step after one time constant (transient)', async () => {
    const result = (await bridge.invoke('spice.simulate', {
      netlist: RC_NETLIST,
      analyses: [{ type: 'tran', step_s: TAU / 100, stop_s: 5 * TAU, max_step_s: TAU / 200 }],
      vectors: ['v(out)'],
    })) as any;
    const [tran] = result.analyses;
    expect(tran.scale.name).toBe('time');
    const times: number[] = tran.scale.values;
    const vout: number[] = tran.vectors['v(out)'];
    // Resampled on the requested grid: point 100 is t = τ. v(τ) = 1 - e^-1 = 0.632 V for a 1 V step; 1 % covers
    // the integration error with steps of τ/200 and the 1 ns rise of the pulse.
    expect(times[100]).toBeCloseTo(TAU, 9);
    expect(Math.abs(vout[100] - (1 - Math.exp(-1))) / (1 - Math.exp(-1))).toBeLessThan(0.01);
    expect(vout.at(-1)).toBeGreaterThan(0.99);
  });
});

describe('spice adapter errors through the bridge', () => {
  it('turns an ngspice failure (isError result) into McpToolError with the adapter message and diagnostics', async () => {
    const error = (await bridge
      .invoke('spice.simulate', { netlist: RC_NETLIST, analyses: [{ type: 'op' }], vectors: ['v(nowhere)'] })
      .catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.code).toBe('TOOL_ERROR');
    expect(error.message).toContain('ngspice produced no results');
    expect(error.message).toContain('no such vector');
    expect((error.details.adapterError as any).error.code).toBe('PROGRAM_FAILED');
    expect((error.details.adapterError as any).error.diagnostics.stderr_tail.length).toBeGreaterThan(0);
  });

  it('refuses an include file name that escapes the scratch directory', async () => {
    const escape = (await bridge
      .invoke('spice.simulate', {
        netlist: 'escape\n.include ../models.lib\nR1 a 0 1k\n',
        analyses: [{ type: 'op' }],
        vectors: ['v(a)'],
        include_files: [{ name: '../models.lib', content: '* nothing' }],
      })
      .catch((e: unknown) => e)) as McpToolError;
    expect(escape).toBeInstanceOf(McpToolError);
    expect(escape.message).toContain("'..' and would escape the call's scratch directory");
    expect((escape.details.adapterError as any).error.code).toBe('INPUT_REJECTED');

    const absolute = (await bridge
      .invoke('spice.simulate', { netlist: 'abs\n.include /etc/passwd\nR1 a 0 1k\n', analyses: [{ type: 'op' }], vectors: ['v(a)'] })
      .catch((e: unknown) => e)) as McpToolError;
    expect(absolute.message).toContain("'/etc/passwd' is an absolute path");

    const control = (await bridge
      .invoke('spice.simulate', {
        netlist: 'ctl\nR1 a 0 1k\n.control\nshell touch /tmp/x\n.endc\n',
        analyses: [{ type: 'op' }],
        vectors: ['v(a)'],
      })
      .catch((e: unknown) => e)) as McpToolError;
    expect(control.message).toContain("'.control' is not allowed");
  });

  it('times out with McpTimeoutError, and the adapter kills ngspice and removes the scratch directory', async () => {
    // A 1 V pulse train simulated for 5 s with internal steps of at most 0.1 ns: ~5e10 steps, far beyond 1.5 s.
    const started = Date.now();
    let sawNgspice = false;
    const watcher = waitUntil(() => (sawNgspice = processesUnder(scratchRoot).some((p) => p.name === 'ngspice')), 1_400, 20);
    const error = await bridge
      .invoke(
        'spice.simulate',
        {
          netlist: 'endless\nV1 a 0 PULSE(0 1 0 1n 1n 1u 2u)\nR1 a 0 1k\n',
          analyses: [{ type: 'tran', step_s: 1e-3, stop_s: 5, max_step_s: 1e-10 }],
          vectors: ['v(a)'],
        },
        { timeoutMs: 1_500 },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTimeoutError);
    expect((error as McpTimeoutError).code).toBe('TOOL_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
    await watcher;
    expect(sawNgspice).toBe(true); // the program really ran in the call's scratch directory
    // The cancellation reaches the adapter, which kills the ngspice process group and removes the scratch dir.
    expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 3_000)).toBe(true);
    expect(await waitUntil(() => readdirSync(scratchRoot).length === 0, 3_000)).toBe(true);
  });

  it('aborts with McpTimeoutError when the caller signal fires', async () => {
    const controller = new AbortController();
    // Abort once ngspice is seen running in a scratch directory of this test.
    void waitUntil(() => processesUnder(scratchRoot).some((p) => p.name === 'ngspice'), 5_000, 20).then(() => controller.abort());
    const error = await bridge
      .invoke(
        'spice.simulate',
        {
          netlist: 'endless\nV1 a 0 PULSE(0 1 0 1n 1n 1u 2u)\nR1 a 0 1k\n',
          analyses: [{ type: 'tran', step_s: 1e-3, stop_s: 5, max_step_s: 1e-10 }],
          vectors: ['v(a)'],
        },
        { signal: controller.signal },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTimeoutError);
    expect((error as McpTimeoutError).message).toContain('was aborted');
    expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 3_000)).toBe(true);
  });

  it('answers a disabled tool with the structured { disabled, reason } result, without calling the adapter, and reports it unavailable', async () => {
    const disabledBridge = new McpBridgeClient({ adapters: new Map([['spice', adapter.url]]), disabledTools: ['spice.simulate'] });
    try {
      const call = { netlist: RC_NETLIST, analyses: [{ type: 'op' }], vectors: ['v(out)'] };
      const result = await disabledBridge.invoke('spice.simulate', call);
      expect(result).toEqual({ disabled: true, reason: "tool 'spice.simulate' is disabled by TOOLS_DISABLED" });
      expect(isDisabledTool(result)).toBe(true);
      expect(disabledBridge.isDisabled('spice.simulate')).toBe(true);
      // The adapter is never asked: the same answer when nothing listens at its address.
      const nowhere = new McpBridgeClient({ adapters: new Map([['spice', 'http://127.0.0.1:9/mcp']]), disabledTools: ['spice.simulate'] });
      try {
        expect(await nowhere.invoke('spice.simulate', call)).toEqual(result);
      } finally {
        await nowhere.close();
      }
      expect(await disabledBridge.isAvailable('spice.simulate')).toBe(false);
      const [descriptor] = await disabledBridge.listTools('circuit_simulation');
      expect(descriptor).toMatchObject({ toolId: 'spice.simulate', available: false, disabled: true });
    } finally {
      await disabledBridge.close();
    }
  });
});
