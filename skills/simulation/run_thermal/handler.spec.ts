import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { McpTimeoutError, McpToolError, SkillExecutionError, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool, FakeWorkProductSeed, TwinConstraint } from '@skill-registry/sdk';
import { createFakeTwin, createTestContext, type FakeTwin } from '@skill-registry/sdk/testing';
import { RunThermalHandler, THERMAL_TOOL } from './handler.js';
import { RunThermalInput, RunThermalOutput } from './schema.js';

interface Fixture {
  id: string;
  kind: string;
  name: string;
  media_type: string;
  content_file: string;
  constraints?: TwinConstraint[];
}

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  version: string;
  read_only: boolean;
  tools_required: unknown[];
  timeout_seconds: number;
  retries: number;
  idempotent: boolean;
  examples: { description: string; input: Record<string, unknown>; output?: unknown; twin?: { work_products: Fixture[] } }[];
};

const DECK = '*HEADING\nplate\n*STEP\n*HEAT TRANSFER, STEADY STATE\n1., 1.\n*END STEP\n';

const set = (name: string, kind: 'node_set' | 'element_set', min: number, max: number, mean = (min + max) / 2, nodeCount = 4) => ({
  name,
  kind,
  node_count: nodeCount,
  min,
  max,
  mean,
});

/**
 * What calculix.run_thermal returns for the steady plate of the first declared example (a real run): 100 degC at
 * x = 0, 20 degC at x = 100 mm, T = 100 - 0.8 x exactly at the nodes.
 */
function steadyPlate(extra: Record<string, unknown> = {}) {
  return {
    temperature: { min: 20, max: 100, mean: 60 },
    hottest_node: { value: 100, node: 1, location: [0, 0, 0] },
    coldest_node: { value: 20, node: 9, location: [100, 0, 0] },
    max_temperature_by_set: { NALL: 100, X0: 100, X25: 80, X50: 60, X75: 40, X100: 20 },
    sets: [
      set('NALL', 'node_set', 20, 100, 60, 36),
      set('X0', 'node_set', 100, 100),
      set('X25', 'node_set', 80, 80),
      set('X50', 'node_set', 60, 60),
      set('X75', 'node_set', 40, 40),
      set('X100', 'node_set', 20, 20),
      set('BAR', 'element_set', 20, 100, 60, 36),
    ],
    transient: false,
    history: [{ time: 1, min: 20, max: 100, mean: 60 }],
    temperature_unit: 'as in the deck',
    mesh_elements: 8,
    mesh_nodes: 36,
    element_types: { C3D8: 8 },
    solver_time: 0.018228,
    result_time: 1,
    warnings: [],
    calculix_version: '2.20',
    ...extra,
  };
}

async function run(raw: Record<string, unknown>, tool: FakeTool = steadyPlate(), twin: FakeTwin = createFakeTwin(), branch = 'main') {
  const context = createTestContext({ tools: { [THERMAL_TOOL]: tool }, twin, branch });
  const output = await new RunThermalHandler(context).execute(RunThermalInput.parse({ deck_inp: DECK, ...raw }));
  return { output: RunThermalOutput.parse(output), context };
}

describe('run_thermal', () => {
  it('summarises a steady-state field and checks limits per set: pass, fail and the whole model', async () => {
    const { output } = await run({
      limits: [
        { set: 'X50', max_allowed: 65 },
        { set: 'x25', max_allowed: 75 },
        { max_allowed: 120, min_allowed: 0 },
      ],
    });
    expect(output).toMatchObject({
      transient: false,
      temperature_unit: 'degC',
      max_temperature: 100,
      min_temperature: 20,
      mean_temperature: 60,
      peak_temperature: 100,
      peak_time: 1,
      hottest_node: { node: 1, temperature: 100, location: [0, 0, 0] },
      coldest_node: { node: 9, temperature: 20, location: [100, 0, 0] },
      solver_time_seconds: 0.018228,
      mesh_elements: 8,
      mesh_nodes: 36,
    });
    expect(output.limits.map((l) => [l.set, l.kind, l.max_temperature, l.min_temperature, l.margin, l.status])).toEqual([
      ['X50', 'node_set', 60, 60, 5, 'pass'], // 65 - 60
      ['x25', 'node_set', 80, 80, -5, 'fail'], // 75 - 80
      [null, 'model', 100, 20, 20, 'pass'], // min(120 - 100, 20 - 0)
    ]);
    expect(output.limits.map((l) => l.message)).toEqual([
      'X50: PASS, max 60 degC (allowed <= 65), margin 5 degC',
      'x25: FAIL, max 80 degC exceeds the allowed 75 degC by 5 degC',
      'model: PASS, max 100 degC (allowed <= 120), min 20 degC (allowed >= 0), margin 20 degC',
    ]);
    expect(output.passed).toBe(false);
    expect(output.sets).toHaveLength(7);
    expect(output.sets[2]).toEqual({ name: 'X25', kind: 'node_set', node_count: 4, min: 80, max: 80, mean: 80 });
  });

  it('passes with no limits, and reports the temperature unit given', async () => {
    const { output } = await run({ temperature_unit: 'K' });
    expect(output.passed).toBe(true);
    expect(output.limits).toEqual([]);
    expect(output.temperature_unit).toBe('K');
  });

  it('fails a minimum temperature and takes the smaller margin of two limits', async () => {
    const { output } = await run({
      limits: [
        { set: 'X75', min_allowed: 45, max_allowed: 90 },
        { set: 'X0', min_allowed: 90, max_allowed: 110 },
      ],
    });
    expect(output.limits[0]).toMatchObject({ status: 'fail', margin: -5, passed: false });
    expect(output.limits[0].message).toBe('X75: FAIL, min 40 degC is below the allowed 45 degC by 5 degC');
    expect(output.limits[1]).toMatchObject({ status: 'pass', margin: 10 }); // min(110 - 100, 100 - 90)
  });

  it('passes a temperature exactly on its limit', async () => {
    const { output } = await run({ limits: [{ set: 'X50', max_allowed: 60, min_allowed: 60 }] });
    expect(output.limits[0]).toMatchObject({ status: 'pass', margin: 0 });
  });

  it('prefers the node set when a node set and an element set share a name, and reads element sets', async () => {
    const result = steadyPlate();
    result.sets.push(set('X50', 'element_set', 40, 80));
    const { output } = await run(
      {
        limits: [
          { set: 'x50', max_allowed: 70 },
          { set: 'bar', max_allowed: 99 },
        ],
      },
      result,
    );
    expect(output.limits[0]).toMatchObject({ kind: 'node_set', max_temperature: 60, status: 'pass' });
    expect(output.limits[1]).toMatchObject({ kind: 'element_set', max_temperature: 100, status: 'fail', margin: -1 });
  });

  it('reports a limit on a set the results do not have, listing the sets', async () => {
    const { output } = await run({ limits: [{ set: 'HEATSINK', max_allowed: 85 }] });
    expect(output.limits[0]).toEqual({
      set: 'HEATSINK',
      kind: null,
      max_allowed: 85,
      min_allowed: null,
      max_temperature: null,
      min_temperature: null,
      margin: null,
      status: 'set_not_found',
      passed: false,
      message: "HEATSINK: SET NOT FOUND, the results have no node or element set 'HEATSINK' (sets: NALL, X0, X25, X50, X75, X100, BAR)",
    });
    expect(output.passed).toBe(false);
  });

  it('checks the whole model over every increment of a transient, and sets at the last increment', async () => {
    // A pulse: the model overshoots to 130 at t = 10 s and cools to 90 by t = 30 s.
    const transient = steadyPlate({
      transient: true,
      temperature: { min: 20, max: 90, mean: 50 },
      hottest_node: { value: 90, node: 1, location: [0, 0, 0] },
      history: [
        { time: 10, min: 20, max: 130, mean: 40 },
        { time: 20, min: 20, max: 130, mean: 55 },
        { time: 30, min: 15, max: 90, mean: 50 },
      ],
    });
    const { output } = await run({ limits: [{ max_allowed: 120 }, { set: 'X0', max_allowed: 120 }] }, transient);
    expect(output.peak_temperature).toBe(130);
    expect(output.peak_time).toBe(10); // the first increment reaching the peak
    expect(output.max_temperature).toBe(90);
    expect(output.limits[0]).toMatchObject({ kind: 'model', max_temperature: 130, min_temperature: 15, margin: -10, status: 'fail' });
    expect(output.limits[0].message).toBe('model: FAIL over all increments, max 130 degC exceeds the allowed 120 degC by 10 degC');
    expect(output.limits[1]).toMatchObject({ kind: 'node_set', max_temperature: 100, status: 'pass' });
    expect(output.history).toHaveLength(3);
  });

  it('sends the deck, include files and a time limit to calculix.run_thermal', async () => {
    let seenTimeout: number | undefined;
    const { context } = await run(
      {
        deck_inp: '*INCLUDE, INPUT=mesh.inp\n*STEP\n*HEAT TRANSFER\n*END STEP\n',
        include_files: [{ name: 'mesh.inp', content: '*NODE\n' }],
      },
      (_params, options) => {
        seenTimeout = options?.timeoutMs;
        return steadyPlate();
      },
    );
    expect(context.toolCalls).toEqual([
      {
        toolId: THERMAL_TOOL,
        params: {
          deck: '*INCLUDE, INPUT=mesh.inp\n*STEP\n*HEAT TRANSFER\n*END STEP\n',
          include_files: [{ name: 'mesh.inp', content: '*NODE\n' }],
          timeout_seconds: 270,
        },
      },
    ]);
    expect(seenTimeout).toBe(280_000);
    expect(seenTimeout! / 1000).toBeLessThan(definition.timeout_seconds);
  });

  it('checks preconditions: every limit has a bound, bounds are ordered, the tool is available', async () => {
    const input = RunThermalInput.parse({ deck_inp: DECK, limits: [{ set: 'X0' }, { min_allowed: 50, max_allowed: 40 }] });
    const handler = new RunThermalHandler(createTestContext({ tools: {} }));
    expect(await handler.validatePreconditions(input)).toEqual([
      'limits[0] (X0) gives neither max_allowed nor min_allowed',
      'limits[1]: min_allowed 50 is above max_allowed 40',
      `CalculiX thermal tool (${THERMAL_TOOL}) is not available`,
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    const ok = new RunThermalHandler(createTestContext({ tools: { [THERMAL_TOOL]: steadyPlate() } }));
    expect(await ok.validatePreconditions(RunThermalInput.parse({ deck_inp: DECK }))).toEqual([]);
  });

  it('propagates tool errors and timeouts unchanged', async () => {
    const error = new McpToolError(THERMAL_TOOL, 'run_thermal needs a *HEAT TRANSFER step (found *STATIC); use run_fea for stress decks');
    await expect(
      run({}, () => {
        throw error;
      }),
    ).rejects.toBe(error);
    const timeout = new McpTimeoutError(THERMAL_TOOL, 280_000);
    await expect(
      run({}, () => {
        throw timeout;
      }),
    ).rejects.toBe(timeout);
  });

  it.each([
    ['no temperature summary', steadyPlate({ temperature: undefined }), 'temperature'],
    ['an empty history', steadyPlate({ history: [] }), 'history'],
    ['a NaN temperature', steadyPlate({ temperature: { min: 20, max: NaN, mean: 60 } }), 'temperature.max'],
    ['an unknown set kind', steadyPlate({ sets: [{ ...set('X0', 'node_set', 1, 1), kind: 'surface' }] }), 'sets.0.kind'],
  ])('refuses a tool result with %s as SkillExecutionError', async (_case, result, where) => {
    const failure = await run({}, result).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain(`${THERMAL_TOOL} returned a result this skill cannot read`);
    expect((failure as Error).message).toContain(where);
  });

  it('validates its input at the schema', () => {
    expect(RunThermalInput.safeParse({ deck_inp: '' }).success).toBe(false);
    expect(RunThermalInput.safeParse({ deck_inp: DECK, limits: [{ set: 'X0', max_allowed: '85' }] }).success).toBe(false);
    expect(RunThermalInput.safeParse({ deck_inp: DECK, limits: [{ set: 'X0', max: 85 }] }).success).toBe(false);
    expect(RunThermalInput.parse({ deck_inp: DECK })).toEqual({
      deck_inp: DECK,
      temperature_unit: 'degC',
      limits: [],
      mesh_include_name: 'mesh.inp',
    });
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(RunThermalInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(RunThermalOutput, 'output'))).toEqual([]);
  });

  it('declares calculix.run_thermal, idempotent with one retry; 0.2.x writes to the twin', () => {
    expect(definition.tools_required).toEqual([{ tool_id: THERMAL_TOOL, capability: 'thermal_analysis', required: true }]);
    expect([definition.retries, definition.idempotent]).toEqual([1, true]);
    expect([definition.version, definition.read_only]).toEqual(['0.2.1', false]);
  });

  it('gives the hand-checked verdicts for the declared steady example on the numbers CalculiX returns for it', async () => {
    const example = definition.examples[0];
    expect(example.output).toBeUndefined(); // solver time varies; the real run is checked in test/integration/catalog-tools
    const { output, context } = await run(example.input);
    expect(context.toolCalls[0].params.deck).toBe(example.input.deck_inp);
    expect(output.limits.map((l) => l.status)).toEqual(['pass', 'fail', 'pass']);
    expect(output).toMatchObject({ limits_source: 'input', source_work_product_id: null, result_work_product_id: null });
  });

  it('gives the hand-checked verdicts for the declared work product example, from its fixture constraints', async () => {
    const example = definition.examples[2];
    expect(example.output).toBeUndefined();
    const twin = createFakeTwin({
      workProducts: (example.twin?.work_products ?? []).map((fixture) => ({
        id: fixture.id,
        kind: fixture.kind,
        name: fixture.name,
        mediaType: fixture.media_type,
        content: readFileSync(new URL(`./${fixture.content_file}`, import.meta.url), 'utf8'),
        constraints: fixture.constraints,
      })),
    });
    const input = RunThermalInput.parse(example.input);
    expect(await new RunThermalHandler(createTestContext({ tools: { [THERMAL_TOOL]: {} }, twin })).validatePreconditions(input)).toEqual(
      [],
    );
    const { output, context } = await run(example.input, steadyPlate(), twin);
    expect((context.toolCalls[0].params.include_files as { name: string; content: string }[])[0]).toMatchObject({ name: 'mesh.inp' });
    expect(output.limits.map((l) => [l.set, l.max_allowed, l.status, l.margin])).toEqual([
      ['X25', 85, 'pass', 5],
      [null, 120, 'pass', 20],
    ]);
    expect(output).toMatchObject({ limits_source: 'twin', passed: true, result_revision: 1 });
  });

  it('accepts the declared transient example', () => {
    const example = definition.examples[1];
    expect(example.output).toBeUndefined();
    expect(RunThermalInput.safeParse(example.input).success).toBe(true);
    expect(example.input.deck_inp).toContain('*HEAT TRANSFER, DIRECT');
  });
});

describe('run_thermal and the digital twin', () => {
  const PLATE = '9a1f3c5e-7b2d-4f6a-8e0c-1d3b5a7c9e2f';
  const MESH = '*NODE, NSET=NALL\n1, 0, 0, 0\n';
  const MESH_DECK = '*INCLUDE, INPUT=mesh.inp\n*STEP\n*HEAT TRANSFER, STEADY STATE\n1., 1.\n*END STEP\n';
  const plate = (extra: Partial<FakeWorkProductSeed> = {}): FakeWorkProductSeed => ({
    id: PLATE,
    kind: 'mesh',
    name: 'plate mesh',
    mediaType: 'text/x-calculix-inp',
    content: MESH,
    ...extra,
  });
  const onPlate = (extra: Record<string, unknown> = {}) => ({ deck_inp: MESH_DECK, work_product_id: PLATE, load_case: 'ends', ...extra });

  it('analyses the mesh work product and writes the result as a simulation_result revision with its source', async () => {
    const twin = createFakeTwin({ workProducts: [plate()] });
    const { output, context } = await run(onPlate({ limits: [{ set: 'X50', max_allowed: 65 }] }), steadyPlate(), twin);
    expect(context.toolCalls[0].params.include_files).toEqual([{ name: 'mesh.inp', content: MESH }]);
    expect(output).toMatchObject({ limits_source: 'input', source_work_product_id: PLATE, source_revision: 1, result_revision: 1 });
    expect(twin.reads).toEqual([{ id: PLATE, revision: 1, branch: 'main' }]);
    expect(twin.writes).toEqual([{ id: output.result_work_product_id, revision: 1, branch: 'main' }]);
    const result = await twin.getWorkProduct(output.result_work_product_id!);
    expect(result).toMatchObject({ kind: 'simulation_result', name: 'plate mesh: thermal, ends' });
    expect(result?.current).toMatchObject({
      mediaType: 'application/json',
      createdBy: 'execution:test-execution',
      metadata: { analysis: 'thermal', source_work_product_id: PLATE, source_revision: 1, load_case: 'ends', passed: true },
    });
    const stored = JSON.parse((await twin.readContent(output.result_work_product_id!)).text());
    expect(stored).toMatchObject({ analysis: 'thermal', passed: true, max_temperature: 100, source_revision: 1 });
    expect(stored).not.toHaveProperty('solver_time_seconds');

    // The same result again is the same revision; another load case is another result.
    const again = await run(onPlate({ limits: [{ set: 'X50', max_allowed: 65 }] }), steadyPlate({ solver_time: 0.5 }), twin);
    expect([again.output.result_work_product_id, again.output.result_revision]).toEqual([output.result_work_product_id, 1]);
    const other = await run(onPlate({ load_case: 'other' }), steadyPlate(), twin);
    expect(other.output.result_work_product_id).not.toBe(output.result_work_product_id);
  });

  it('takes the max_temperature constraints of the work product when no limits are passed', async () => {
    const constraints = [
      { kind: 'max_von_mises_stress', max_von_mises_mpa: 235, material: 'steel' },
      { kind: 'max_temperature', max_temperature_c: 75, region: 'X25' },
      { kind: 'max_temperature', max_temperature_c: 120 },
    ];
    const twin = createFakeTwin({ workProducts: [plate({ constraints })] });
    const { output } = await run(onPlate(), steadyPlate(), twin);
    expect(output.limits_source).toBe('twin');
    expect(output.limits.map((l) => [l.set, l.max_allowed, l.status])).toEqual([
      ['X25', 75, 'fail'],
      [null, 120, 'pass'],
    ]);
    expect(output.passed).toBe(false);
    // Without constraints and limits, nothing is checked.
    const bare = await run(onPlate(), steadyPlate(), createFakeTwin({ workProducts: [plate()] }));
    expect([bare.output.limits_source, bare.output.limits, bare.output.passed]).toEqual(['none', [], true]);
  });

  it('fails its preconditions on a work product missing from the caller branch, naming it and the branch', async () => {
    // On another branch only, not on `study`.
    const twin = createFakeTwin({ branches: ['study', 'other'], workProducts: [plate({ branch: 'other' })] });
    const handler = new RunThermalHandler(createTestContext({ tools: { [THERMAL_TOOL]: {} }, twin, branch: 'study' }));
    expect(await handler.validatePreconditions(RunThermalInput.parse(onPlate()))).toEqual([
      `Work product ${PLATE} not found on branch study`,
    ]);
  });

  it('fails its preconditions on degC constraints for a kelvin deck, a deck not reading the mesh, and a non-CalculiX work product', async () => {
    const check = async (twin: FakeTwin, raw: Record<string, unknown>) =>
      new RunThermalHandler(createTestContext({ tools: { [THERMAL_TOOL]: {} }, twin })).validatePreconditions(RunThermalInput.parse(raw));
    const withLimit = createFakeTwin({ workProducts: [plate({ constraints: [{ kind: 'max_temperature', max_temperature_c: 85 }] })] });
    expect(await check(withLimit, onPlate({ temperature_unit: 'K' }))).toEqual([
      `the max_temperature constraints of work product ${PLATE} are in degC but the deck's temperature_unit is K: pass limits in K`,
    ]);
    const broken = createFakeTwin({ workProducts: [plate({ constraints: [{ kind: 'max_temperature', max_temperature_c: '85' }] })] });
    expect((await check(broken, onPlate()))[0]).toContain(
      `max_temperature constraint 0 of work product ${PLATE} on branch main is unusable`,
    );
    expect(await check(createFakeTwin({ workProducts: [plate()] }), onPlate({ deck_inp: DECK }))).toEqual([
      "deck_inp does not include the work product's mesh: add the line *INCLUDE, INPUT=mesh.inp",
    ]);
    const [format] = await check(createFakeTwin({ workProducts: [plate({ kind: 'cad_model', mediaType: 'model/step' })] }), onPlate());
    expect(format).toContain(`Work product ${PLATE} is model/step (a cad_model), not CalculiX input`);
  });

  it('writes on its own branch only: main does not see a study branch result', async () => {
    const twin = createFakeTwin({ workProducts: [plate()] });
    twin.createBranch('study');
    const { output } = await run(onPlate(), steadyPlate(), twin, 'study');
    expect(twin.writes).toEqual([{ id: output.result_work_product_id, revision: 1, branch: 'study' }]);
    expect(await twin.getWorkProduct(output.result_work_product_id!)).toBeNull();
    expect(await twin.listWorkProducts({ kind: 'simulation_result' })).toEqual([]);
  });
});
