// The five tool-backed catalog skills of this slice (mechanical/validate_stress, check_tolerances, export_mesh,
// simulation/run_thermal, run_circuit_sim) run against the REAL adapters (ngspice, CalculiX, gmsh) through the MCP
// bridge: every declared example, on a fake twin holding its fixtures, checked against its declared output when it
// has one and against numbers an engineer can work out by hand (tolerances stated where they are used). The previous
// versions of the mechanical chain (skills/previous, before the digital twin) still give the same numbers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillContext, SkillHandlerClass } from '@skill-registry/sdk';
import { createFakeTwin, createTestContext, type FakeTwin } from '@skill-registry/sdk/testing';
import { McpBridgeClient } from '#mcp-bridge/index.js';
import { resolveExampleTwin, SkillPackageLoader } from '#skill-loader/index.js';
import type { LoadedSkillPackage, SkillDefinition, SkillExample } from '#skill-loader/index.js';
import { calculixAdapter } from '../../apps/adapters/calculix/src/adapter.js';
import { gmshAdapter } from '../../apps/adapters/gmsh/src/adapter.js';
import { spiceAdapter } from '../../apps/adapters/spice/src/adapter.js';
import type { RunningAdapter } from '../../apps/adapters/common/src/index.js';
import { isolateScratchRoot, startInProcess } from '../adapters/support.js';
import { uniaxialBlockDeck } from '../support/block-decks.js';

const skillsRoot = fileURLToPath(new URL('../../skills', import.meta.url));
/** Each package with the version it holds. */
const VERSIONS = {
  'mechanical/validate_stress': '1.0.1',
  'mechanical/check_tolerances': '0.1.1',
  'mechanical/export_mesh': '0.2.1',
  'simulation/run_thermal': '0.2.1',
  'simulation/run_circuit_sim': '0.1.1',
  'previous/mechanical/validate_stress': '0.1.0',
  'previous/mechanical/export_mesh': '0.1.0',
  'previous/simulation/run_thermal': '0.1.0',
} as const;
type SkillPath = keyof typeof VERSIONS;
const SKILLS = Object.keys(VERSIONS) as SkillPath[];

interface ZodLike {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } };
}

interface LoadedSkill {
  pkg: LoadedSkillPackage;
  definition: SkillDefinition;
  Handler: SkillHandlerClass;
}

isolateScratchRoot();
const loader = new SkillPackageLoader();
const adapters: RunningAdapter[] = [];
const skills = new Map<SkillPath, LoadedSkill>();
let bridge: McpBridgeClient;

beforeAll(async () => {
  const [spice, calculix, gmsh] = await Promise.all([
    startInProcess(spiceAdapter()),
    startInProcess(calculixAdapter()),
    startInProcess(gmshAdapter()),
  ]);
  adapters.push(spice, calculix, gmsh);
  bridge = new McpBridgeClient({
    adapters: new Map([
      ['spice', spice.url],
      ['calculix', calculix.url],
      ['gmsh', gmsh.url],
    ]),
  });
  for (const path of SKILLS) {
    const dir = join(skillsRoot, path);
    const pkg = await loader.load(dir);
    if (!pkg.definition) throw new Error(`${path} did not load: ${JSON.stringify(pkg.issues)}`);
    // The handler class exactly as the executor's sandbox loads it (through the loader, with the package SDK copy).
    skills.set(path, { pkg, definition: pkg.definition, Handler: await loader.loadHandlerClass(dir, pkg.definition) });
  }
});

afterAll(async () => {
  await bridge?.close();
  await Promise.all(adapters.map((adapter) => adapter.close()));
});

/** A SkillContext like the executor's, with the real MCP bridge in place of the scripted one. */
function realContext(mcp: SkillContext['mcp'] = bridge, twin: FakeTwin = createFakeTwin(), branch = 'main'): SkillContext {
  const { logger, executionId, sessionId, signal, twin: view } = createTestContext({ twin, branch });
  return { mcp, twin: view, logger, executionId, sessionId, branch, signal };
}

/** A fake twin holding the example's fixtures, their bytes read from the package, as promotion seeds them. */
async function fixtureTwin(path: SkillPath, example: SkillExample): Promise<FakeTwin> {
  return createFakeTwin({ workProducts: await resolveExampleTwin(example, skills.get(path)!.pkg.packagePath) });
}

/** Run one input as the sandbox does: input schema, preconditions, execute, output schema, JSON round trip. */
async function runSkill(
  path: SkillPath,
  rawInput: unknown,
  options: { mcp?: SkillContext['mcp']; twin?: FakeTwin; branch?: string } = {},
): Promise<any> {
  const { Handler } = skills.get(path)!;
  const input = (Handler.inputSchema as ZodLike).safeParse(rawInput);
  expect(input.error?.issues ?? []).toEqual([]);
  const handler = new Handler(realContext(options.mcp, options.twin, options.branch));
  expect(await handler.validatePreconditions(input.data as never)).toEqual([]);
  const raw = await handler.execute(input.data as never);
  const output = (Handler.outputSchema as ZodLike).safeParse(raw);
  expect(output.error?.issues ?? []).toEqual([]);
  return JSON.parse(JSON.stringify(output.data));
}

/** Run every declared example on its fixtures; compare with the declared output where there is one (as promotion does). */
async function runExamples(path: SkillPath): Promise<any[]> {
  const { definition } = skills.get(path)!;
  expect(definition.examples.length).toBeGreaterThan(0);
  const outputs: any[] = [];
  for (const example of definition.examples) {
    const output = await runSkill(path, example.input, { twin: await fixtureTwin(path, example) });
    if (example.output !== undefined) expect(output).toStrictEqual(JSON.parse(JSON.stringify(example.output)));
    outputs.push(output);
  }
  return outputs;
}

const relative = (actual: number, expected: number) => Math.abs(actual - expected) / Math.abs(expected);

describe('the packages load cleanly with the real loader', () => {
  it.each(SKILLS)('%s: valid, no issues, tools declared with their capabilities', (path) => {
    const { pkg, definition } = skills.get(path)!;
    // skills/previous/ keeps the registered bytes unchanged: its SKILL.md still writes the catalog name
    // (`validate_stress`), which the loader reports as a docs warning (not listed by skills/list); nothing else.
    const expected = path.startsWith('previous/')
      ? [expect.objectContaining({ severity: 'warning', category: 'docs', file: 'SKILL.md', path: '/name' })]
      : [];
    expect(pkg.issues).toEqual(expected);
    expect(pkg.valid).toBe(true);
    expect(definition.version).toBe(VERSIONS[path]);
    expect(definition.phase).toBe(1);
    expect(definition.idempotent).toBe(true);
    expect(definition.tools_required.length).toBe(1);
    expect(definition.tools_required.every((tool) => tool.required)).toBe(true);
  });

  it('declares tools the adapters offer, under the capability the adapter declares', async () => {
    const offered = await bridge.listTools();
    for (const path of SKILLS) {
      for (const tool of skills.get(path)!.definition.tools_required) {
        expect(offered.find((descriptor) => descriptor.toolId === tool.tool_id)).toMatchObject({
          capability: tool.capability,
          available: true,
        });
      }
    }
  });
});

describe('mechanical/validate_stress on the real CalculiX', () => {
  // Cantilever 100 x 10 x 10 mm, E = 210 GPa, clamped at x = 0, tip load P in -z. Beam theory: I = b·h³/12 =
  // 833.33 mm⁴, σ(x) = P·(L - x)·(h/2)/I: 60 MPa at the clamp and 54 MPa at x = 10 mm for P = 100 N; tip deflection
  // P·L³/(3·E·I) = 0.1905 mm. The 20 x 2 x 2 C3D8I mesh gives nodal stresses extrapolated to the nodes: the peak of
  // ROOT (first 10 mm, at the clamp's fully fixed section) is allowed 5 %, SPAN (plain bending from x = 10 mm) 3 %,
  // the deflection 3 % (shear deformation adds about 0.8 % at L/h = 10).
  const I = (10 * 10 ** 3) / 12;
  const sigma = (P: number, x: number) => (P * (100 - x) * 5) / I;

  it('runs both declared examples on the mesh work product: the 100 N case passes everywhere, the 275 N case fails at the root only', async () => {
    const [light, heavy] = await runExamples('mechanical/validate_stress');

    const stress = (output: any, region: string) => output.results.find((r: any) => r.region === region).max_von_mises_mpa;
    expect(light.results.map((r: any) => r.region)).toEqual(['BAR', 'ROOT', 'SPAN']);
    expect(relative(stress(light, 'ROOT'), sigma(100, 0))).toBeLessThan(0.05);
    expect(relative(stress(light, 'SPAN'), sigma(100, 10))).toBeLessThan(0.03);
    expect(stress(light, 'BAR')).toBe(stress(light, 'ROOT')); // BAR holds every element, so its peak is the root's
    for (const result of light.results) {
      expect(result.allowable_mpa).toBeCloseTo(235 / 1.5, 10); // 156.67 MPa
      expect(result.safety_factor_achieved).toBeCloseTo(235 / result.max_von_mises_mpa, 10);
      expect(result.passed).toBe(true);
    }
    expect(light.overall_passed).toBe(true);
    expect(light.critical_region).toBe('BAR'); // ties with ROOT; the first region wins (the seed's strict >)
    expect(light.max_stress_mpa).toBe(stress(light, 'ROOT'));
    expect(relative(light.max_displacement_mm, (100 * 100 ** 3) / (3 * 210_000 * I))).toBeLessThan(0.03);
    expect([light.mesh_elements, light.mesh_nodes]).toEqual([80, 189]);
    expect(light.solver_time_seconds).toBeGreaterThan(0);
    expect(light.work_product_id).toBe('3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11');

    // 275 N: a linear analysis, so every stress is 2.75 times the 100 N one (to the 6 digits CalculiX prints).
    expect(heavy.results.map((r: any) => [r.region, r.passed])).toEqual([
      ['ROOT', false], // ≈ 163 MPa > 156.67 MPa
      ['SPAN', true], // ≈ 149 MPa
    ]);
    expect(relative(stress(heavy, 'ROOT'), 2.75 * stress(light, 'ROOT'))).toBeLessThan(1e-5);
    expect(relative(stress(heavy, 'SPAN'), 2.75 * stress(light, 'SPAN'))).toBeLessThan(1e-5);
    expect(heavy.overall_passed).toBe(false);
    expect(heavy.critical_region).toBe('ROOT');

    // The first example took the work product's constraint; each result went to the twin as revision 1.
    expect([light.constraints_source, heavy.constraints_source]).toEqual(['twin', 'input']);
    expect([light.source_revision, light.result_revision, heavy.result_revision]).toEqual([1, 1, 1]);
  });

  it('gives the numbers of the previous version (deck with the mesh inline), which keeps working', async () => {
    const [light, heavy] = await runExamples('mechanical/validate_stress');
    const [oldLight, oldHeavy] = await runExamples('previous/mechanical/validate_stress');
    const numbers = (output: any) => [output.results, output.max_stress_mpa, output.max_displacement_mm, output.mesh_elements];
    expect(numbers(light)).toEqual(numbers(oldLight));
    expect(numbers(heavy)).toEqual(numbers(oldHeavy));
  });

  it('passes a CalculiX error through as a tool error (unknown region)', async () => {
    const { definition } = skills.get('mechanical/validate_stress')!;
    const example = definition.examples[0];
    const input = { ...example.input, regions: ['FLANGE'] };
    const failure = await runSkill('mechanical/validate_stress', input, {
      twin: await fixtureTwin('mechanical/validate_stress', example),
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'TOOL_ERROR' });
    expect((failure as Error).message).toContain("region 'FLANGE' is not an element set of the deck (sets: BAR, ROOT, SPAN)");
  });

  it('reports the missing tool as a failed precondition on a bridge without the calculix adapter', async () => {
    const partial = new McpBridgeClient({ adapters: new Map([['gmsh', adapters[2].url]]) });
    try {
      const { Handler, definition } = skills.get('mechanical/validate_stress')!;
      const example = definition.examples[0];
      const input = (Handler.inputSchema as ZodLike).safeParse(example.input).data;
      const twin = await fixtureTwin('mechanical/validate_stress', example);
      const failures = await new Handler(realContext(partial, twin)).validatePreconditions(input as never);
      expect(failures).toEqual(['CalculiX FEA tool (calculix.run_fea) is not available']);
    } finally {
      await partial.close();
    }
  });
});

describe('mechanical/check_tolerances on the real gmsh', () => {
  it('runs the declared examples with their exact outputs', async () => {
    const [block, builtIn] = await runExamples('mechanical/check_tolerances');
    // Hand check: a 2 x 3 x 4 block: diagonal √29 = 5.385164807 mm, volume 24 mm³, top face 6 mm²; the height 4 mm
    // fails 4.1 ± 0.05 by -0.1 mm. gmsh's CAD numbers are exact up to rounding (10 significant digits kept).
    const check = (name: string) => block.checks.find((c: any) => c.name === name);
    expect(check('diagonal').measured).toBe(Number(Math.sqrt(29).toPrecision(10)));
    expect(check('volume').measured).toBe(24);
    expect(check('top_face_area').measured).toBe(6);
    expect(check('height_z')).toMatchObject({ measured: 4, deviation: -0.1, status: 'fail' });
    expect(block.failed_checks).toEqual(['height_z']);
    expect(builtIn.checks.map((c: any) => c.status)).toEqual(['pass', 'not_measured']);
  });
});

describe('mechanical/export_mesh on the real gmsh, solved by the real CalculiX', () => {
  it('runs the declared examples: the exact outputs the previous version declares, plus the mesh work product', async () => {
    // The previous version declares its exact outputs (and runExamples compares them); 0.2.0 meshes the same block
    // (inline, then from the cad_model fixture) and adds where the mesh went.
    const previous = await runExamples('previous/mechanical/export_mesh');
    const [linear, quadratic] = await runExamples('mechanical/export_mesh');
    for (const [output, old] of [
      [linear, previous[0]],
      [quadratic, previous[1]],
    ]) {
      const { mesh_work_product_id: _id, mesh_revision, ...rest } = output;
      expect(rest).toStrictEqual(old);
      expect(mesh_revision).toBe(1);
    }
    // Straight-edged tetrahedra fill the 2 x 3 x 4 block exactly: 24 mm³ (10 significant digits).
    expect(linear).toMatchObject({ mesh_volume: 24, passed: true, element_types: [{ type: 'C3D4', count: 65 }] });
    expect(quadratic).toMatchObject({ mesh_volume: 24, passed: false, element_types: [{ type: 'C3D10', count: 24 }] });
  });

  it('chains into validate_stress by work product id on a branch: uniaxial 10 MPa is 10 MPa von Mises everywhere', async () => {
    const { definition } = skills.get('mechanical/export_mesh')!;
    const twin = createFakeTwin();
    const mesh = await runSkill('mechanical/export_mesh', definition.examples[0].input, { twin });
    // The uniaxial block deck (test/support/block-decks.ts): 10 MPa von Mises in every region, the largest
    // displacement (p/E)·√(4² + (0.3·2)² + (0.3·3)²); the safety factor against 235 MPa is 23.5.
    const deck = uniaxialBlockDeck(mesh.inp as string);
    // The constraint lives on the mesh in the twin; the analysis runs on a study branch forked after the export.
    twin.setConstraints(mesh.mesh_work_product_id, [
      { kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' },
    ]);
    twin.createBranch('study');
    const stress = await runSkill(
      'mechanical/validate_stress',
      { work_product_id: mesh.mesh_work_product_id, load_case: 'top_pressure_10MPa', deck_inp: deck, regions: ['body'] },
      { twin, branch: 'study' },
    );
    expect(stress.results).toHaveLength(1);
    expect(stress.results[0].region).toBe('BODY');
    expect(relative(stress.results[0].max_von_mises_mpa, 10)).toBeLessThan(1e-4);
    expect(relative(stress.results[0].safety_factor_achieved, 23.5)).toBeLessThan(1e-4);
    expect(relative(stress.max_displacement_mm, (10 / 210_000) * Math.hypot(4, 0.3 * 2, 0.3 * 3))).toBeLessThan(1e-4);
    expect(stress.mesh_elements).toBe(mesh.element_count);
    expect(stress.overall_passed).toBe(true);
    expect(stress).toMatchObject({ constraints_source: 'twin', source_revision: mesh.mesh_revision, result_revision: 1 });
    const result = await twin.getWorkProduct(stress.result_work_product_id, { branch: 'study' });
    expect(result?.current.metadata).toMatchObject({ source_work_product_id: mesh.mesh_work_product_id, load_case: 'top_pressure_10MPa' });
    expect(await twin.listWorkProducts({ kind: 'simulation_result', branch: 'main' })).toEqual([]);
  });
});

describe('simulation/run_thermal on the real CalculiX', () => {
  it('runs the declared examples: the linear steady profile, the transient heat-up, and the plate as a work product', async () => {
    const [steady, transient, onTwin] = await runExamples('simulation/run_thermal');
    // Steady 1-D conduction between 100 °C (x = 0) and 20 °C (x = 100 mm): T(x) = 100 - 0.8·x, exact at the nodes of
    // linear bricks up to the six digits of the .frd file (1e-3 °C).
    const expected: Record<string, number> = { X0: 100, X25: 80, X50: 60, X75: 40, X100: 20 };
    for (const [name, temperature] of Object.entries(expected)) {
      const summary = steady.sets.find((s: any) => s.name === name);
      expect(Math.abs(summary.min - temperature)).toBeLessThan(1e-3);
      expect(Math.abs(summary.max - temperature)).toBeLessThan(1e-3);
    }
    expect(Math.abs(steady.mean_temperature - 60)).toBeLessThan(1e-3);
    expect(steady.limits.map((l: any) => l.status)).toEqual(['pass', 'fail', 'pass']);
    steady.limits.forEach((limit: any, index: number) => expect(Math.abs(limit.margin - [5, -5, 20][index])).toBeLessThan(1e-3));
    expect(steady.passed).toBe(false);
    expect(steady.transient).toBe(false);
    expect([steady.mesh_elements, steady.mesh_nodes]).toEqual([8, 36]);
    expect(steady.hottest_node.location[0]).toBe(0);
    expect(steady.coldest_node.location[0]).toBe(100);

    // Transient from 20 °C, 40 increments of 5 s: the slowest mode decays with L²/(π²α) ≈ 10 s (α = 97.5 mm²/s),
    // so after 200 s the plate is at the steady profile (remainder e^-19); on the way the mean never falls.
    expect(transient.transient).toBe(true);
    expect(transient.history).toHaveLength(40);
    const means: number[] = transient.history.map((h: any) => h.mean);
    expect(means[0]).toBeLessThan(50);
    for (let i = 1; i < means.length; i++) expect(means[i]).toBeGreaterThanOrEqual(means[i - 1] - 1e-9);
    expect(transient.history.at(-1).time).toBeCloseTo(200, 6);
    expect(Math.abs(transient.limits[0].max_temperature - 60)).toBeLessThan(1e-2);
    expect(Math.abs(transient.limits[1].min_temperature - 40)).toBeLessThan(1e-2);
    expect(transient.passed).toBe(true);

    // The same steady plate with its mesh from the twin, checked against the work product's max_temperature constraints.
    expect(onTwin.sets).toEqual(steady.sets);
    expect(onTwin).toMatchObject({ limits_source: 'twin', passed: true, source_revision: 1, result_revision: 1 });
    onTwin.limits.forEach((limit: any, index: number) => expect(Math.abs(limit.margin - [5, 20][index])).toBeLessThan(1e-3));
  });

  it('keeps the previous version working with the same numbers', async () => {
    const [steady, transient] = await runExamples('simulation/run_thermal');
    const [oldSteady, oldTransient] = await runExamples('previous/simulation/run_thermal');
    const numbers = (output: any) => [output.sets, output.limits, output.history, output.passed];
    expect(numbers(steady)).toEqual(numbers(oldSteady));
    expect(numbers(transient)).toEqual(numbers(oldTransient));
  });
});

describe('simulation/run_circuit_sim on the real ngspice', () => {
  it('runs the declared RC examples with their exact outputs, which match the hand calculation', async () => {
    const [ac, tran] = await runExamples('simulation/run_circuit_sim');
    const measured = (output: any, name: string) => output.measurements.find((m: any) => m.name === name).value as number;
    const tau = 1000 * 159.155e-9;
    // AC: f_c = 1/(2πRC) = 1000 Hz; 10 points per decade leave 0.3 % of interpolation error (0.5 allowed). At f_c the
    // gain is 20·log10(1/√2) = -3.0103 dB and the phase -45° (C is rounded to 6 digits: 0.01 dB, 0.01°).
    expect(measured(ac, 'v_out_dc')).toBeCloseTo(5, 9);
    expect(relative(measured(ac, 'f_3db'), 1000)).toBeLessThan(0.005);
    expect(Math.abs(measured(ac, 'gain_at_1khz') + 3.0103)).toBeLessThan(0.01);
    expect(Math.abs(measured(ac, 'phase_at_1khz') + 45)).toBeLessThan(0.01);
    expect(ac.analyses[1].points).toBe(41);
    // Step response: v(τ) = 1 - 1/e, rise 10-90 % τ·ln 9, 2 % settling τ·ln 50, v(10τ) = 1 - e^-10. ngspice's
    // integration with steps of τ/200 is within 0.1 %; 1 % leaves room for the 1 ns edge of the pulse.
    expect(relative(measured(tran, 'v_at_tau'), 1 - Math.exp(-1))).toBeLessThan(0.01);
    expect(relative(measured(tran, 't_rise_10_90'), tau * Math.log(9))).toBeLessThan(0.01);
    expect(relative(measured(tran, 't_settle_2pct'), tau * Math.log(50))).toBeLessThan(0.01);
    expect(Math.abs(measured(tran, 'v_final') - (1 - Math.exp(-10)))).toBeLessThan(1e-4);
  });

  it('passes an ngspice failure through as a tool error', async () => {
    const { definition } = skills.get('simulation/run_circuit_sim')!;
    const input = { ...definition.examples[0].input, vectors: ['v(nowhere)'], measurements: [] };
    const failure = await runSkill('simulation/run_circuit_sim', input).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'TOOL_ERROR' });
    expect((failure as Error).message).toContain('no such vector');
  });
});
