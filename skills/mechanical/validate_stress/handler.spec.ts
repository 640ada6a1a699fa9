import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { McpTimeoutError, McpToolError, SkillExecutionError, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool, FakeWorkProductSeed, TwinConstraint } from '@skill-registry/sdk';
import { createFakeTwin, createTestContext, type FakeTwin } from '@skill-registry/sdk/testing';
import { FEA_TOOL, ValidateStressHandler } from './handler.js';
import { ValidateStressInput, ValidateStressOutput } from './schema.js';

interface Fixture {
  id: string;
  kind: string;
  name: string;
  media_type: string;
  content_file: string;
  metadata?: Record<string, unknown>;
  constraints?: TwinConstraint[];
}

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  version: string;
  read_only: boolean;
  tools_required: { tool_id: string; capability: string; required: boolean }[];
  timeout_seconds: number;
  retries: number;
  idempotent: boolean;
  examples: { description: string; input: Record<string, unknown>; output?: unknown; twin: { work_products: Fixture[] } }[];
};

const WORK_PRODUCT = '3f1c2a9e-6b7d-4c1e-9a55-2d8e4b7f0c11';
const MESH = '*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D8I, ELSET=BRACKET_BODY\n';
const DECK = '*INCLUDE, INPUT=mesh.inp\n*STEP\n*STATIC\n*END STEP\n';
const S235 = { kind: 'max_von_mises_stress', max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' };

/** The mesh work product of the tests, on `main`. */
function meshProduct(extra: Partial<FakeWorkProductSeed> = {}): FakeWorkProductSeed {
  return { id: WORK_PRODUCT, kind: 'mesh', name: 'bracket mesh', mediaType: 'text/x-calculix-inp', content: MESH, ...extra };
}

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

async function run(
  tool: FakeTool,
  input = sampleInput(),
  twin: FakeTwin = createFakeTwin({ workProducts: [meshProduct()] }),
  branch = 'main',
) {
  const context = createTestContext({ tools: { [FEA_TOOL]: tool }, twin, branch });
  const output = await new ValidateStressHandler(context).execute(input);
  return { output: ValidateStressOutput.parse(output), context, twin };
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
    const twin = createFakeTwin({ workProducts: [meshProduct()] });
    const missing = new ValidateStressHandler(createTestContext({ tools: {}, twin }));
    const errors = await missing.validatePreconditions(sampleInput());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('not available');
    expect(errors[0]).toContain(FEA_TOOL);
    const present = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: { max_von_mises: { A: 1 } } }, twin }));
    expect(await present.validatePreconditions(sampleInput())).toEqual([]);
    const disabled = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: {} }, unavailable: [FEA_TOOL], twin }));
    expect(await disabled.validatePreconditions(sampleInput())).toHaveLength(1);
  });

  it('reports a work product missing from the caller branch, naming it and the branch (seed test_precondition_missing_artifact)', async () => {
    // On another branch only, not on `study`.
    const twin = createFakeTwin({ branches: ['study', 'other'], workProducts: [meshProduct({ branch: 'other' })] });
    const handler = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: {} }, twin, branch: 'study' }));
    expect(await handler.validatePreconditions(sampleInput())).toEqual([`Work product ${WORK_PRODUCT} not found on branch study`]);
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

  it('sends the deck, the mesh and other include files, unit system, regions and a time limit to calculix.run_fea', async () => {
    const input = sampleInput({
      deck_inp: '*INCLUDE, INPUT=bracket.inp\n*INCLUDE, INPUT=materials.inp\n*STEP\n*STATIC\n*END STEP\n',
      mesh_include_name: 'bracket.inp',
      include_files: [{ name: 'materials.inp', content: '*MATERIAL, NAME=AL\n' }],
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
          include_files: [
            { name: 'bracket.inp', content: MESH },
            { name: 'materials.inp', content: '*MATERIAL, NAME=AL\n' },
          ],
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

  it('defaults to N-mm and the mesh as mesh.inp, and sends no regions when none are given', async () => {
    const { context, output } = await run({
      max_von_mises: { A: 1 },
      length_unit: 'mm',
      displacement: { max_magnitude: { value: 0.19 } },
    });
    expect(context.toolCalls[0].params).toEqual({
      deck: DECK,
      include_files: [{ name: 'mesh.inp', content: MESH }],
      unit_system: 'N-mm',
      timeout_seconds: 270,
    });
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
    const handler = new ValidateStressHandler(createTestContext({ tools: {}, twin: createFakeTwin({ workProducts: [meshProduct()] }) }));
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
    expect(ValidateStressInput.parse(base).constraints?.[0].safety_factor).toBe(1.5);
    expect(ValidateStressInput.parse(base).unit_system).toBe('N-mm');
    expect(ValidateStressInput.safeParse({ ...base, work_product_id: 'bracket-7' }).success).toBe(false);
    expect(ValidateStressInput.safeParse({ ...base, constraints: [] }).success).toBe(false);
    expect(ValidateStressInput.parse({ ...base, constraints: undefined }).constraints).toBeUndefined();
    expect(ValidateStressInput.parse(base).mesh_include_name).toBe('mesh.inp');
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

  it('declares the seed definition: calculix.run_fea, 300 s, one retry, idempotent; 1.0.1 writes to the twin', () => {
    expect(definition.tools_required).toEqual([{ tool_id: FEA_TOOL, capability: 'stress_analysis', required: true }]);
    expect([definition.timeout_seconds, definition.retries, definition.idempotent]).toEqual([300, 1, true]);
    expect([definition.version, definition.read_only]).toEqual(['1.0.1', false]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))(
    'runs the declared example against its twin fixtures: %s',
    async (_d, example) => {
      expect(ValidateStressInput.safeParse(example.input).success).toBe(true);
      // Outputs are left out on purpose (solver time varies); the real run is checked in test/integration/catalog-tools.
      expect(example.output).toBeUndefined();
      const twin = createFakeTwin({
        workProducts: example.twin.work_products.map((fixture) => ({
          id: fixture.id,
          kind: fixture.kind,
          name: fixture.name,
          mediaType: fixture.media_type,
          content: readFileSync(new URL(`./${fixture.content_file}`, import.meta.url), 'utf8'),
          metadata: fixture.metadata,
          constraints: fixture.constraints,
        })),
      });
      const input = ValidateStressInput.parse(example.input);
      const handler = new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: {} }, twin }));
      expect(await handler.validatePreconditions(input)).toEqual([]);
      const { output, context } = await run({ max_von_mises: { BAR: 59.24, ROOT: 59.24, SPAN: 54.21 } }, input, twin);
      expect(context.toolCalls[0].params.deck).toBe(example.input.deck_inp);
      expect((context.toolCalls[0].params.include_files as { content: string }[])[0].content).toContain('*NSET, NSET=TIP');
      expect(output.results.length).toBe(3);
    },
  );
});

describe('validate_stress and the digital twin', () => {
  const FEA = { max_von_mises: { ROOT: 60, SPAN: 54 }, solver_time: 0.5, mesh_elements: 80, mesh_nodes: 189 };

  it('writes the result as a simulation_result revision of the branch, with its source and load case', async () => {
    const { output, twin } = await run(
      FEA,
      sampleInput({ constraints: undefined }),
      createFakeTwin({ workProducts: [meshProduct({ constraints: [S235] })] }),
    );
    expect(output).toMatchObject({ source_revision: 1, result_revision: 1, constraints_source: 'twin', overall_passed: true });
    expect(twin.reads).toEqual([{ id: WORK_PRODUCT, revision: 1, branch: 'main' }]);
    expect(twin.writes).toEqual([{ id: output.result_work_product_id, revision: 1, branch: 'main' }]);
    const result = await twin.getWorkProduct(output.result_work_product_id);
    expect(result).toMatchObject({ kind: 'simulation_result', name: 'bracket mesh: static stress, static_load_1' });
    expect(result?.current).toMatchObject({
      mediaType: 'application/json',
      createdBy: 'execution:test-execution',
      metadata: {
        analysis: 'static_stress',
        source_work_product_id: WORK_PRODUCT,
        source_revision: 1,
        load_case: 'static_load_1',
        overall_passed: true,
      },
    });
    const stored = JSON.parse((await twin.readContent(output.result_work_product_id)).text());
    // The stored result is the output without the result's own ids and the solver time, plus the constraints checked.
    const { result_work_product_id: _id, result_revision: _revision, solver_time_seconds: _time, ...rest } = output;
    expect(stored).toEqual({
      analysis: 'static_stress',
      ...rest,
      constraints: [{ max_von_mises_mpa: 235, safety_factor: 1.5, material: 'steel_s235' }],
    });
  });

  it('keeps one result per work product and load case: a re-run adds a revision, an identical result none', async () => {
    const twin = createFakeTwin({ workProducts: [meshProduct()] });
    const first = await run(FEA, sampleInput(), twin);
    const identical = await run({ ...FEA, solver_time: 0.7 }, sampleInput(), twin);
    expect([identical.output.result_work_product_id, identical.output.result_revision]).toEqual([first.output.result_work_product_id, 1]);
    const remeshed = await twin.putWorkProduct({ ...meshProduct(), content: `${MESH}** refined\n` });
    const rerun = await run({ ...FEA, max_von_mises: { ROOT: 61, SPAN: 54 } }, sampleInput(), twin);
    expect(rerun.output).toMatchObject({ result_work_product_id: first.output.result_work_product_id, source_revision: remeshed.revision });
    expect(rerun.output.result_revision).toBe(2);
    const other = await run(FEA, sampleInput({ load_case: 'static_load_2' }), twin);
    expect(other.output.result_work_product_id).not.toBe(first.output.result_work_product_id);
  });

  it('takes the max_von_mises_stress constraints of the work product when none are passed', async () => {
    const twin = createFakeTwin({
      workProducts: [
        meshProduct({
          constraints: [
            { kind: 'max_temperature', max_temperature_c: 85 },
            S235,
            { ...S235, safety_factor: undefined, max_von_mises_mpa: 355, material: 'steel_s355' },
          ],
        }),
      ],
    });
    const { output } = await run({ max_von_mises: { ROOT: 160 } }, sampleInput({ constraints: undefined }), twin);
    expect(output.constraints_source).toBe('twin');
    expect(output.results.map((r) => [r.constraint_index, r.material, r.allowable_mpa, r.passed])).toEqual([
      [0, 'steel_s235', 235 / 1.5, false],
      [1, 'steel_s355', 355 / 1.5, true], // the default safety factor 1.5
    ]);
    // Constraints in the input win over the twin's.
    expect((await run({ max_von_mises: { ROOT: 160 } }, sampleInput(), twin)).output.constraints_source).toBe('input');
  });

  it('fails its preconditions clearly when there are no constraints, or unusable ones, or the deck does not read the mesh', async () => {
    const check = async (twin: FakeTwin, input: ValidateStressInput) =>
      new ValidateStressHandler(createTestContext({ tools: { [FEA_TOOL]: {} }, twin })).validatePreconditions(input);
    expect(await check(createFakeTwin({ workProducts: [meshProduct()] }), sampleInput({ constraints: undefined }))).toEqual([
      `no stress constraints: pass constraints, or set max_von_mises_stress constraints on work product ${WORK_PRODUCT} on branch main`,
    ]);
    const unusable = createFakeTwin({
      workProducts: [meshProduct({ constraints: [{ kind: 'max_von_mises_stress', max_von_mises_mpa: -1 }] })],
    });
    const [problem] = await check(unusable, sampleInput({ constraints: undefined }));
    expect(problem).toContain(
      `max_von_mises_stress constraint 0 of work product ${WORK_PRODUCT} on branch main is unusable: max_von_mises_mpa`,
    );
    const twin = createFakeTwin({ workProducts: [meshProduct()] });
    expect(
      await check(twin, sampleInput({ deck_inp: '*STEP\n*STATIC\n*END STEP\n', include_files: [{ name: 'mesh.inp', content: '' }] })),
    ).toEqual([
      "deck_inp does not include the work product's mesh: add the line *INCLUDE, INPUT=mesh.inp",
      "include_files has a file named mesh.inp, the name the work product's mesh is written under (mesh_include_name)",
    ]);
    const geometry = createFakeTwin({ workProducts: [meshProduct({ kind: 'cad_model', mediaType: 'model/step' })] });
    const [format] = await check(geometry, sampleInput());
    expect(format).toContain(`Work product ${WORK_PRODUCT} is model/step (a cad_model), not CalculiX input (text/x-calculix-inp)`);
  });

  it('refuses at execute too when the constraints are gone (a PRECONDITION_FAILED, not a vacuous pass)', async () => {
    const failure = await run(FEA, sampleInput({ constraints: undefined })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('writes on its own branch only: main does not see a study branch result', async () => {
    const twin = createFakeTwin({ workProducts: [meshProduct()] });
    twin.createBranch('study');
    const { output } = await run(FEA, sampleInput(), twin, 'study');
    expect(twin.reads).toEqual([{ id: WORK_PRODUCT, revision: 1, branch: 'study' }]);
    expect(twin.writes).toEqual([{ id: output.result_work_product_id, revision: 1, branch: 'study' }]);
    expect(await twin.getWorkProduct(output.result_work_product_id)).toBeNull();
    expect(await twin.listWorkProducts({ kind: 'simulation_result' })).toEqual([]);
  });
});
