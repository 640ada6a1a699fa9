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
import { RunThermalHandler, THERMAL_TOOL } from './handler.js';
import { RunThermalInput, RunThermalOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  tools_required: unknown[];
  timeout_seconds: number;
  retries: number;
  idempotent: boolean;
  examples: { description: string; input: Record<string, unknown>; output?: unknown }[];
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

async function run(raw: Record<string, unknown>, tool: FakeTool = steadyPlate()) {
  const context = createTestContext({ tools: { [THERMAL_TOOL]: tool } });
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
    expect(RunThermalInput.parse({ deck_inp: DECK })).toEqual({ deck_inp: DECK, temperature_unit: 'degC', limits: [] });
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(RunThermalInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(RunThermalOutput, 'output'))).toEqual([]);
  });

  it('declares calculix.run_thermal, idempotent with one retry', () => {
    expect(definition.tools_required).toEqual([{ tool_id: THERMAL_TOOL, capability: 'thermal_analysis', required: true }]);
    expect([definition.retries, definition.idempotent]).toEqual([1, true]);
  });

  it('gives the hand-checked verdicts for the declared steady example on the numbers CalculiX returns for it', async () => {
    const example = definition.examples[0];
    expect(example.output).toBeUndefined(); // solver time varies; the real run is checked in test/integration/catalog-tools
    const { output, context } = await run(example.input);
    expect(context.toolCalls[0].params.deck).toBe(example.input.deck_inp);
    expect(output.limits.map((l) => l.status)).toEqual(['pass', 'fail', 'pass']);
  });

  it('accepts the declared transient example', () => {
    const example = definition.examples[1];
    expect(example.output).toBeUndefined();
    expect(RunThermalInput.safeParse(example.input).success).toBe(true);
    expect(example.input.deck_inp).toContain('*HEAT TRANSFER, DIRECT');
  });
});
