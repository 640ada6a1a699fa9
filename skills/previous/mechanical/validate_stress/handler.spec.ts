import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  McpTimeoutError,
  McpToolError,
  SkillExecutionError,
  createTestContext,
  findUndescribedProperties,
  toJsonSchema,
} from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { FEA_TOOL, ValidateStressHandler } from './handler.js';
import { ValidateStressInput, ValidateStressOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  tools_required: { tool_id: string; capability: string; required: boolean }[];
  timeout_seconds: number;
  retries: number;
  idempotent: boolean;
  examples: { description: string; input: Record<string, unknown>; output?: unknown }[];
};

const WORK_PRODUCT = '3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11';
const DECK = '*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D8I, ELSET=BRACKET_BODY\n*STEP\n*STATIC\n*END STEP\n';

/** The seed's sample input: one aluminium constraint, 250 MPa with a safety factor of 1.5. */
function sampleInput(extra: Record<string, unknown> = {}) {
  return ValidateStressInput.parse({
    work_product_id: WORK_PRODUCT,
    load_case: 'static_load_1',
    deck_inp: DECK,
    constraints: [{ max_von_mises_mpa: 250.0, safety_factor: 1.5, material: 'aluminum_6061' }],
    ...extra,
  });
}

async function run(tool: FakeTool, input = sampleInput()) {
  const context = createTestContext({ tools: { [FEA_TOOL]: tool } });
  const output = await new ValidateStressHandler(context).execute(input);
  return { output: ValidateStressOutput.parse(output), context };
}

describe('validate_stress', () => {
  // The seed's tests.py, ported.
  it('passes when the stress is below the allowable (seed test_stress_passes)', async () => {
    const { output } = await run({ max_von_mises: { bracket_body: 100.0 }, solver_time: 12.5, mesh_elements: 45000 });
    expect(output.overall_passed).toBe(true);
    expect(output.max_stress_mpa).toBe(100.0);
    expect(output.results[0].safety_factor_achieved).toBe(2.5); // 250 / 100
    expect(output.results[0].allowable_mpa).toBeCloseTo(166.6667, 4); // 250 / 1.5
    expect(output.critical_region).toBe('bracket_body');
    expect(output.solver_time_seconds).toBe(12.5);
    expect(output.mesh_elements).toBe(45000);
    expect(output.work_product_id).toBe(WORK_PRODUCT);
    expect(output.load_case).toBe('static_load_1');
  });

  it('fails when the stress exceeds limit / safety factor (seed test_stress_fails)', async () => {
    const { output } = await run({ max_von_mises: { bracket_body: 200.0 }, solver_time: 15.0, mesh_elements: 45000 });
    // 200 > 250 / 1.5 = 166.67 -> fail, although 200 < 250: the safety factor achieved is 1.25 < 1.5.
    expect(output.overall_passed).toBe(false);
    expect(output.results[0]).toMatchObject({ passed: false, safety_factor_achieved: 1.25, max_von_mises_mpa: 200 });
  });

  it('reports the missing tool as a failed precondition (seed test_precondition_missing_artifact, tool part)', async () => {
    const missing = new ValidateStressHandler(createTestContext({ tools: {} }));
    const errors = await missing.validatePreconditions(sampleInput());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('not available');
    expect(errors[0]).toContain(FEA_TOOL);
    const present = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: { max_von_mises: { A: 1 } } } }));
    expect(await present.validatePreconditions(sampleInput())).toEqual([]);
    const disabled = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: {} }, unavailable: [FEA_TOOL] }));
    expect(await disabled.validatePreconditions(sampleInput())).toHaveLength(1);
  });

  it('gives one result per (constraint, region), constraints outer, and passes exactly at the allowable', async () => {
    const input = sampleInput({
      constraints: [
        { max_von_mises_mpa: 250, safety_factor: 1.5, material: 'aluminum_6061' },
        { max_von_mises_mpa: 150, safety_factor: 1.25, material: 'aluminum_6063' }, // allowable exactly 120
      ],
    });
    const { output } = await run({ max_von_mises: { ROOT: 120, SPAN: 90 }, solver_time: 1, mesh_elements: 10 }, input);
    expect(
      output.results.map((r) => [r.constraint_index, r.material, r.region, r.allowable_mpa, r.safety_factor_achieved, r.passed]),
    ).toEqual([
      [0, 'aluminum_6061', 'ROOT', 250 / 1.5, 250 / 120, true],
      [0, 'aluminum_6061', 'SPAN', 250 / 1.5, 250 / 90, true],
      [1, 'aluminum_6063', 'ROOT', 120, 1.25, true], // 120 <= 120: on the limit passes
      [1, 'aluminum_6063', 'SPAN', 120, 150 / 90, true],
    ]);
    expect(output.results.map((r) => r.safety_factor_required)).toEqual([1.5, 1.5, 1.25, 1.25]);
    expect(output.overall_passed).toBe(true);
    expect(output.max_stress_mpa).toBe(120);
    expect(output.critical_region).toBe('ROOT');
  });

  it('fails overall when one region of one constraint fails, and names the most stressed region', async () => {
    const input = sampleInput({
      constraints: [
        { max_von_mises_mpa: 235, material: 'steel_s235' }, // default safety factor 1.5 -> 156.67 MPa
        { max_von_mises_mpa: 355, safety_factor: 2, material: 'steel_s355' }, // 177.5 MPa
      ],
    });
    const { output } = await run({ max_von_mises: { WEB: 100, FLANGE: 160, BOLT: 40 }, solver_time: 2, mesh_elements: 3 }, input);
    expect(output.results.filter((r) => !r.passed).map((r) => [r.constraint_index, r.region])).toEqual([[0, 'FLANGE']]);
    expect(output.overall_passed).toBe(false);
    expect(output.critical_region).toBe('FLANGE');
    expect(output.max_stress_mpa).toBe(160);
    expect(output.results[0].safety_factor_required).toBe(1.5);
  });

  it('keeps the first region on a tie for the critical region (strictly greater replaces it, as in the seed)', async () => {
    const { output } = await run({ max_von_mises: { BAR: 59.2, ROOT: 59.2, SPAN: 54.2 } });
    expect(output.critical_region).toBe('BAR');
  });

  it('reports an unstressed region with a null (infinite) safety factor, and an empty critical region when nothing is stressed', async () => {
    const { output } = await run({ max_von_mises: { LOADED: 50, IDLE: 0 }, solver_time: 1, mesh_elements: 2 });
    expect(output.results[1]).toMatchObject({ region: 'IDLE', max_von_mises_mpa: 0, safety_factor_achieved: null, passed: true });
    expect(output.critical_region).toBe('LOADED');
    // The JSON the executor stores keeps null (Infinity would have become null silently).
    expect(JSON.parse(JSON.stringify(output)).results[1].safety_factor_achieved).toBeNull();

    const { output: idle } = await run({ max_von_mises: { A: 0, B: 0 } });
    expect(idle.max_stress_mpa).toBe(0);
    expect(idle.critical_region).toBe('');
    expect(idle.overall_passed).toBe(true);
  });

  it('defaults solver time and element count to 0 when the tool omits them (as the seed does)', async () => {
    const { output } = await run({ max_von_mises: { A: 10 } });
    expect(output.solver_time_seconds).toBe(0);
    expect(output.mesh_elements).toBe(0);
    expect(output.mesh_nodes).toBeNull();
    expect(output.max_displacement_mm).toBeNull();
    expect(output.warnings).toEqual([]);
  });

  it('sends the deck, include files, unit system, regions and a time limit to calculix.run_fea', async () => {
    const input = sampleInput({
      deck_inp: '*INCLUDE, INPUT=mesh.inp\n*STEP\n*STATIC\n*END STEP\n',
      include_files: [{ name: 'mesh.inp', content: '*NODE\n1, 0, 0, 0\n' }],
      unit_system: 'N-m',
      regions: ['root', 'span'],
    });
    let seenTimeout: number | undefined;
    const { context, output } = await run((_params, options) => {
      seenTimeout = options?.timeoutMs;
      return {
        max_von_mises: { ROOT: 60, SPAN: 54 },
        solver_time: 0.5,
        mesh_elements: 80,
        mesh_nodes: 189,
        stress_unit: 'MPa',
        length_unit: 'm',
        displacement: { max_magnitude: { value: 0.00019, node: 21, location: [0.1, 0, 0] } },
        warnings: ['*WARNING in e_c3d: nonpositive jacobian'],
      };
    }, input);
    expect(context.toolCalls).toEqual([
      {
        toolId: FEA_TOOL,
        params: {
          deck: input.deck_inp,
          include_files: [{ name: 'mesh.inp', content: '*NODE\n1, 0, 0, 0\n' }],
          unit_system: 'N-m',
          regions: ['root', 'span'],
          timeout_seconds: 270,
        },
      },
    ]);
    expect(seenTimeout).toBe(280_000);
    expect(seenTimeout! / 1000).toBeLessThan(definition.timeout_seconds);
    expect(output.max_displacement_mm).toBeCloseTo(0.19, 12); // 0.00019 m
    expect(output.mesh_nodes).toBe(189);
    expect(output.warnings).toEqual(['*WARNING in e_c3d: nonpositive jacobian']);
  });

  it('defaults to N-mm and sends no include files or regions when none are given', async () => {
    const { context, output } = await run({
      max_von_mises: { A: 1 },
      length_unit: 'mm',
      displacement: { max_magnitude: { value: 0.19 } },
    });
    expect(context.toolCalls[0].params).toEqual({ deck: DECK, unit_system: 'N-mm', timeout_seconds: 270 });
    expect(output.max_displacement_mm).toBe(0.19);
  });

  it('propagates a tool error and a tool timeout unchanged', async () => {
    const error = new McpToolError(FEA_TOOL, "CalculiX failed: *ERROR in calinput: material TITANIUM doesn't exist");
    await expect(
      run(() => {
        throw error;
      }),
    ).rejects.toBe(error);
    const timeout = new McpTimeoutError(FEA_TOOL, 280_000);
    await expect(
      run(() => {
        throw timeout;
      }),
    ).rejects.toBe(timeout);
    // A tool the bridge does not offer: the fake bridge raises McpToolError, and so does the handler.
    const handler = new ValidateStressHandler(createTestContext({ tools: {} }));
    await expect(handler.execute(sampleInput())).rejects.toBeInstanceOf(McpToolError);
  });

  it.each([
    ['no max_von_mises', { solver_time: 1 }, 'max_von_mises'],
    ['an empty region map', { max_von_mises: {} }, 'has no regions'],
    ['a negative stress', { max_von_mises: { A: -1 } }, 'max_von_mises.A'],
    ['a non-numeric stress', { max_von_mises: { A: '12' } }, 'max_von_mises.A'],
    ['stresses in model units', { max_von_mises: { A: 1 }, stress_unit: 'model units' }, 'stress_unit'],
    ['a non-numeric solver time', { max_von_mises: { A: 1 }, solver_time: 'fast' }, 'solver_time'],
  ])('refuses a tool result with %s as SkillExecutionError', async (_case, result, where) => {
    const failure = await run(result).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain(`${FEA_TOOL} returned a result this skill cannot read`);
    expect((failure as Error).message).toContain(where);
  });

  it('validates its input at the schema', () => {
    const base = {
      work_product_id: WORK_PRODUCT,
      load_case: 'lc',
      deck_inp: DECK,
      constraints: [{ max_von_mises_mpa: 250, material: 'x' }],
    };
    expect(ValidateStressInput.safeParse(base).success).toBe(true);
    expect(ValidateStressInput.parse(base).constraints[0].safety_factor).toBe(1.5);
    expect(ValidateStressInput.parse(base).unit_system).toBe('N-mm');
    expect(ValidateStressInput.safeParse({ ...base, work_product_id: 'bracket-7' }).success).toBe(false);
    expect(ValidateStressInput.safeParse({ ...base, constraints: [] }).success).toBe(false);
    expect(
      ValidateStressInput.safeParse({ ...base, constraints: [{ max_von_mises_mpa: 250, safety_factor: 0.9, material: 'x' }] }).success,
    ).toBe(false);
    expect(ValidateStressInput.safeParse({ ...base, deck_inp: '' }).success).toBe(false);
    expect(ValidateStressInput.safeParse({ ...base, mesh_file_path: '/project/mesh/bracket.inp' }).success).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(ValidateStressInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(ValidateStressOutput, 'output'))).toEqual([]);
  });

  it('declares the seed definition: calculix.run_fea, 300 s, one retry, idempotent', () => {
    expect(definition.tools_required).toEqual([{ tool_id: FEA_TOOL, capability: 'stress_analysis', required: true }]);
    expect([definition.timeout_seconds, definition.retries, definition.idempotent]).toEqual([300, 1, true]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))('declared example input is valid: %s', async (_d, example) => {
    expect(ValidateStressInput.safeParse(example.input).success).toBe(true);
    // Outputs are left out on purpose (solver time varies); the real run is checked in test/integration/catalog-tools.
    expect(example.output).toBeUndefined();
    const { output, context } = await run(
      { max_von_mises: { BAR: 59.24, ROOT: 59.24, SPAN: 54.21 } },
      ValidateStressInput.parse(example.input),
    );
    expect(context.toolCalls[0].params.deck).toBe(example.input.deck_inp);
    expect(output.results.length).toBe(3);
  });
});
