// The calculix adapter with the real CalculiX (ccx), called through the MCP bridge.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { McpTimeoutError, McpToolError } from '@skill-registry/sdk';
import { McpBridgeClient } from '#mcp-bridge/index.js';
import { calculixAdapter } from '../../apps/adapters/calculix/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { cantileverDeck, heatedPlateDeck } from './models.js';
import { isolateScratchRoot, processesUnder, startInProcess, waitUntil } from './support.js';

// Cantilever: L = 100 mm, 10 mm × 10 mm section, steel E = 210000 MPa, tip load P = 100 N.
const L = 100;
const B = 10;
const H = 10;
const E = 210_000;
const P = 100;
const I = (B * H ** 3) / 12; // 833.3 mm^4
const TIP_DEFLECTION = (P * L ** 3) / (3 * E * I); // Euler–Bernoulli: 0.1905 mm
const beam = { length: L, width: B, height: H, nx: 40, ny: 4, nz: 4 };
const bendingStress = (x: number) => (P * (L - x) * (H / 2)) / I; // M·c/I at distance x from the clamp

// Plate: 100 mm × 20 mm × 2 mm, 100 °C at x = 0 and 20 °C at x = 100 mm, insulated elsewhere.
const plate = { length: 100, width: 20, height: 2, nx: 20, ny: 4, nz: 1 };

const scratchRoot = isolateScratchRoot();
let adapter: RunningAdapter;
let bridge: McpBridgeClient;

beforeAll(async () => {
  adapter = await startInProcess(calculixAdapter());
  bridge = new McpBridgeClient({ adapters: new Map([['calculix', adapter.url]]) });
});

afterAll(async () => {
  await bridge?.close();
  await adapter?.close();
});

describe('calculix.run_fea on a cantilever beam', () => {
  it('matches beam theory for tip deflection and root stress, with the keys validate_stress reads', async () => {
    const result = (await bridge.invoke('calculix.run_fea', { deck: cantileverDeck(beam, P) })) as any;

    // Tip deflection vs P·L³/(3EI). The 3-D model adds shear deformation (about +0.8 % at L/h = 10) and the
    // clamp's Poisson restraint stiffens the root slightly; 40×4×4 C3D8I bricks are within 0.5 % of the
    // converged answer. 3 % covers all of it while still catching a wrong load, modulus or unit.
    expect(result.length_unit).toBe('mm');
    expect(Math.abs(-result.displacement.z.min - TIP_DEFLECTION) / TIP_DEFLECTION).toBeLessThan(0.03);
    expect(result.displacement.max_magnitude.location[0]).toBe(L);

    // Root stress vs M·c/I = P·L·(h/2)/I = 60 MPa. Nodal stresses near the clamp include the local disturbance
    // of the fully fixed section (Poisson restraint, a mild singularity at its edges), so the peak of the ROOT
    // set (first 10 mm) is allowed 10 %. One element length further out, at the start of SPAN (x = 10 mm),
    // the stress is plain bending: M(10)·c/I = 54 MPa within 3 %.
    expect(result.stress_unit).toBe('MPa');
    expect(Math.abs(result.max_von_mises.ROOT - bendingStress(0)) / bendingStress(0)).toBeLessThan(0.1);
    expect(Math.abs(result.max_von_mises.SPAN - bendingStress(10)) / bendingStress(10)).toBeLessThan(0.03);
    expect(result.regions.find((region: any) => region.name === 'SPAN').location[0]).toBeCloseTo(10, 6);

    // The seed's validate_stress reads exactly these keys.
    expect(Object.keys(result.max_von_mises).sort()).toEqual(['BAR', 'ROOT', 'SPAN']);
    expect(result.solver_time).toBeGreaterThan(0);
    expect(result.mesh_elements).toBe(40 * 4 * 4);
    expect(result.mesh_nodes).toBe(41 * 5 * 5);
    expect(result.element_types).toEqual({ C3D8I: 640 });
    expect(result.calculix_version).toBe('2.20');
  });

  it('reports only the regions asked for, and refuses an unknown one', async () => {
    const result = (await bridge.invoke('calculix.run_fea', { deck: cantileverDeck(beam, P), regions: ['span'] })) as any;
    expect(Object.keys(result.max_von_mises)).toEqual(['SPAN']);
    const error = (await bridge
      .invoke('calculix.run_fea', { deck: cantileverDeck(beam, P), regions: ['FLANGE'] })
      .catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.message).toContain("region 'FLANGE' is not an element set of the deck (sets: BAR, ROOT, SPAN)");
  });
});

describe('calculix.run_thermal on a heated plate', () => {
  it('gives the linear steady-state profile of 1-D conduction between two fixed temperatures', async () => {
    const result = (await bridge.invoke('calculix.run_thermal', { deck: heatedPlateDeck(plate, 100, 20) })) as any;
    // T(x) = 100 - 80·x/L. Linear bricks represent a linear field exactly, so the only error left is the
    // six significant digits of the .frd file: 1e-3 °C.
    const expected: Record<string, number> = { X0: 100, X25: 80, X50: 60, X75: 40, X100: 20 };
    for (const [set, temperature] of Object.entries(expected)) {
      const summary = result.sets.find((entry: any) => entry.name === set && entry.kind === 'node_set');
      expect(Math.abs(summary.min - temperature)).toBeLessThan(1e-3);
      expect(Math.abs(summary.max - temperature)).toBeLessThan(1e-3);
      expect(Math.abs(result.max_temperature_by_set[set] - temperature)).toBeLessThan(1e-3);
    }
    expect(result.transient).toBe(false);
    expect(result.temperature.max).toBeCloseTo(100, 3);
    expect(result.temperature.min).toBeCloseTo(20, 3);
    expect(Math.abs(result.temperature.mean - 60)).toBeLessThan(1e-3); // symmetric profile on a uniform grid
    expect(result.hottest_node.location[0]).toBe(0);
    expect(result.coldest_node.location[0]).toBe(100);
    expect(result.mesh_elements).toBe(80);
    expect(result.history).toHaveLength(1);
  });

  it('follows a transient heat-up towards the steady state', async () => {
    const result = (await bridge.invoke('calculix.run_thermal', {
      deck: heatedPlateDeck(plate, 100, 20, { increment: 5, duration: 200 }),
    })) as any;
    // Diffusivity α = k/(ρc) = 97.5 mm²/s. The slowest mode of the profile decays as exp(-π²αt/L²): after 5 s the
    // plate is far from steady (mean well below 60 °C), after 200 s the remainder is e^-19, so the mean is 60 °C
    // up to the .frd precision; the mean never falls on the way (heat only flows in from the hot end).
    expect(result.transient).toBe(true);
    expect(result.history).toHaveLength(40);
    const means: number[] = result.history.map((entry: any) => entry.mean);
    expect(means[0]).toBeLessThan(50);
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeGreaterThanOrEqual(means[i - 1] - 1e-9);
    expect(result.history.at(-1).time).toBeCloseTo(200, 6);
    expect(Math.abs(result.temperature.mean - 60)).toBeLessThan(1e-2);
  });
});

describe('calculix adapter errors through the bridge', () => {
  it('turns a CalculiX *ERROR into McpToolError with its message', async () => {
    const deck = cantileverDeck(beam, P).replace(
      '*SOLID SECTION, ELSET=BAR, MATERIAL=STEEL',
      '*SOLID SECTION, ELSET=BAR, MATERIAL=TITANIUM',
    );
    const error = (await bridge.invoke('calculix.run_fea', { deck }).catch((e: unknown) => e)) as McpToolError;
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.message).toContain('CalculiX failed');
    expect(error.message).toContain('*ERROR');
    expect((error.details.adapterError as any).error.code).toBe('PROGRAM_FAILED');
  });

  it('refuses an *INCLUDE that escapes the scratch directory or is not given', async () => {
    const escape = (await bridge
      .invoke('calculix.run_fea', { deck: `*INCLUDE, INPUT=../../etc/mesh.inp\n${cantileverDeck(beam, P)}` })
      .catch((e: unknown) => e)) as McpToolError;
    expect(escape).toBeInstanceOf(McpToolError);
    expect(escape.message).toContain("'..' and would escape the call's scratch directory");
    const missing = (await bridge
      .invoke('calculix.run_fea', { deck: `*INCLUDE, INPUT=mesh.inp\n${cantileverDeck(beam, P)}` })
      .catch((e: unknown) => e)) as McpToolError;
    expect(missing.message).toContain("reads 'mesh.inp', which is not among 'include_files'");
  });

  it('reads a mesh from include_files', async () => {
    const [meshPart, rest] = splitAt(cantileverDeck(beam, P), '*MATERIAL');
    const result = (await bridge.invoke('calculix.run_fea', {
      deck: `*INCLUDE, INPUT=mesh/beam.inp\n${rest}`,
      include_files: [{ name: 'mesh/beam.inp', content: meshPart }],
    })) as any;
    expect(result.mesh_elements).toBe(640);
    expect(Object.keys(result.max_von_mises).sort()).toEqual(['BAR', 'ROOT', 'SPAN']);
  });

  it('refuses a heat transfer deck on run_fea (and the reverse)', async () => {
    const error = (await bridge
      .invoke('calculix.run_fea', { deck: heatedPlateDeck(plate, 100, 20) })
      .catch((e: unknown) => e)) as McpToolError;
    expect(error.message).toContain('run_fea needs a *STATIC step (found *HEAT TRANSFER)');
    const reverse = (await bridge
      .invoke('calculix.run_thermal', { deck: cantileverDeck(beam, P) })
      .catch((e: unknown) => e)) as McpToolError;
    expect(reverse.message).toContain('run_thermal needs a *HEAT TRANSFER step (found *STATIC)');
  });

  it('times out with McpTimeoutError, and the adapter kills ccx', async () => {
    // 1e-9 s increments over 1e9 s: CalculiX would run for ever; results written only every 1e8 increments.
    const deck = heatedPlateDeck(plate, 100, 20, { increment: 1e-9, duration: 1e9, frequency: 100_000_000 });
    let sawCcx = false;
    const watcher = waitUntil(() => (sawCcx = processesUnder(scratchRoot).some((p) => p.name === 'ccx')), 1_400, 20);
    const error = await bridge.invoke('calculix.run_thermal', { deck }, { timeoutMs: 1_500 }).catch((e: unknown) => e);
    await watcher;
    expect(error).toBeInstanceOf(McpTimeoutError);
    expect(sawCcx).toBe(true);
    expect(await waitUntil(() => processesUnder(scratchRoot).length === 0, 3_000)).toBe(true);
    expect(await waitUntil(() => readdirSync(scratchRoot).length === 0, 3_000)).toBe(true);
  });
});

function splitAt(text: string, marker: string): [string, string] {
  const index = text.indexOf(marker);
  return [text.slice(0, index), text.slice(index)];
}
