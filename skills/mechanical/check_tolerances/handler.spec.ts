import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { McpToolError, SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import type { FakeTool } from '@skill-registry/sdk';
import { CheckTolerancesHandler, MEASURE_TOOL } from './handler.js';
import { CheckTolerancesInput, CheckTolerancesOutput } from './schema.js';
import { round10 } from './tolerances.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  tools_required: unknown[];
  examples: { description: string; input: Record<string, unknown>; output: Record<string, unknown> }[];
};

const GEO = 'SetFactory("OpenCASCADE");\nBox(1) = {0, 0, 0, 2, 3, 4};\n';

/**
 * What gmsh.measure returns for the 2 x 3 x 4 box of the declared example (taken from a real run): note the
 * CAD volume 23.999999999999996 and the diagonal sqrt(29).
 */
function boxResult(distances: { from: string; to: string }[] = []) {
  const points: Record<string, number[]> = { origin: [0, 0, 0], xcorner: [2, 0, 0], far: [2, 3, 4], bottom: [1, 1.5, 0], top: [1, 1.5, 4] };
  return {
    bounding_box: { min: [0, 0, 0], max: [2, 3, 4], size: [2, 3, 4] },
    volume: 23.999999999999996,
    surface_area: 52,
    volumes: { body: 23.999999999999996 },
    surface_areas: { bottom: 6, top: 6 },
    curve_lengths: { hole_edge: 6.283185307179586 },
    physical_groups: [],
    distances: distances.map(({ from, to }) => {
      const delta = [0, 1, 2].map((axis) => points[to][axis] - points[from][axis]);
      const kind = ['bottom', 'top'].includes(from) || ['bottom', 'top'].includes(to) ? 'centroid_to_centroid' : 'point_to_point';
      return { from, to, kind, distance: Math.hypot(...delta), delta };
    }),
    entity_counts: { points: 8, curves: 12, surfaces: 6, volumes: 1 },
    kernel: 'opencascade',
    gmsh_version: '4.8.4',
    warnings: [],
  };
}

/** A fake gmsh.measure answering with boxResult for the distances asked. */
const boxTool: FakeTool = (params) => boxResult((params.distances as { from: string; to: string }[] | undefined) ?? []);

async function run(raw: Record<string, unknown>, tool: FakeTool = boxTool) {
  const context = createTestContext({ tools: { [MEASURE_TOOL]: tool } });
  const input = CheckTolerancesInput.parse(raw);
  const output = await new CheckTolerancesHandler(context).execute(input);
  return { output: CheckTolerancesOutput.parse(output), context };
}

const check = (extra: Record<string, unknown>) => ({ name: 'c', nominal: 0, tolerance_plus: 0.1, ...extra });

describe('check_tolerances', () => {
  it('passes a bounding box extent within ± tolerance and fails one outside, with the deviation', async () => {
    const { output } = await run({
      geo: GEO,
      checks: [
        check({ name: 'length_x', kind: 'bounding_box', axis: 'x', nominal: 2, tolerance_plus: 0.05 }),
        check({ name: 'height_z', kind: 'bounding_box', axis: 'z', nominal: 4.1, tolerance_plus: 0.05 }),
      ],
    });
    expect(output.checks[0]).toMatchObject({
      measured: 2,
      deviation: 0,
      status: 'pass',
      passed: true,
      lower_limit: 1.95,
      upper_limit: 2.05,
    });
    expect(output.checks[1]).toMatchObject({
      measured: 4,
      deviation: -0.1,
      status: 'fail',
      passed: false,
      lower_limit: 4.05,
      upper_limit: 4.15,
    });
    expect(output.checks[1].message).toBe(
      'height_z: FAIL, bounding box size along z = 4 mm, below the lower limit 4.05 mm (nominal 4.1 mm ±0.05, deviation -0.1 mm)',
    );
    expect(output.passed).toBe(false);
    expect(output.failed_checks).toEqual(['height_z']);
    expect([output.checks_passed, output.checks_failed, output.checks_not_measured]).toEqual([1, 1, 0]);
  });

  it('applies asymmetric tolerances and passes a value exactly on a limit despite floating-point noise', async () => {
    const { output } = await run({
      geo: GEO,
      checks: [
        // 2 + 0.05 is 2.0500000000000003 in binary; a measured 2.05 is on the limit and passes.
        check({ name: 'on_upper', kind: 'bounding_box', axis: 'x', nominal: 1.95, tolerance_plus: 0.05, tolerance_minus: 0 }),
        // +0 / -0.5: 3 is 0.5 below 3.5, on the lower limit.
        check({ name: 'on_lower', kind: 'bounding_box', axis: 'y', nominal: 3.5, tolerance_plus: 0, tolerance_minus: 0.5 }),
        // +0.2 / -0: 4 is below the nominal 4.1, so it fails although within 0.2 above.
        check({ name: 'one_sided', kind: 'bounding_box', axis: 'z', nominal: 4.1, tolerance_plus: 0.2, tolerance_minus: 0 }),
      ],
    });
    expect(output.checks.map((c) => [c.name, c.deviation, c.lower_limit, c.upper_limit, c.status])).toEqual([
      ['on_upper', 0.05, 1.95, 2, 'pass'],
      ['on_lower', -0.5, 3, 3.5, 'pass'],
      ['one_sided', -0.1, 4.1, 4.3, 'fail'],
    ]);
    expect(output.checks[2].message).toContain('+0.2/-0');
  });

  it('rounds CAD noise away: the volume 23.999999999999996 is 24 mm^3 with zero deviation', async () => {
    const { output } = await run({ geo: GEO, checks: [check({ name: 'volume', kind: 'volume', nominal: 24, tolerance_plus: 0 })] });
    expect(output.checks[0]).toMatchObject({ measured: 24, deviation: 0, status: 'pass', unit: 'mm^3', feature: 'total volume' });
    expect(output.volume).toBe(24);
    expect(round10(5.385164807134504)).toBe(5.385164807);
    expect(round10(-0)).toBe(0);
  });

  it('measures distances between points exactly, along an axis as |delta|, and between centroids, asking gmsh once per pair', async () => {
    const { output, context } = await run({
      geo: GEO,
      length_unit: 'in',
      checks: [
        check({ name: 'diagonal', kind: 'distance', from: 'origin', to: 'far', nominal: 5.385, tolerance_plus: 0.001 }),
        check({ name: 'back_x', kind: 'distance', from: 'xcorner', to: 'origin', axis: 'x', nominal: 2, tolerance_plus: 0.01 }),
        check({ name: 'rise_z', kind: 'distance', from: 'origin', to: 'far', axis: 'z', nominal: 4, tolerance_plus: 0.01 }),
        check({ name: 'faces', kind: 'distance', from: 'bottom', to: 'top', nominal: 4, tolerance_plus: 0.01 }),
      ],
    });
    expect(context.toolCalls[0].params.distances).toEqual([
      { from: 'origin', to: 'far' },
      { from: 'xcorner', to: 'origin' },
      { from: 'bottom', to: 'top' },
    ]);
    expect(output.checks.map((c) => [c.name, c.measured, c.deviation, c.unit, c.passed])).toEqual([
      ['diagonal', 5.385164807, 0.000164807, 'in', true], // sqrt(2^2 + 3^2 + 4^2) = sqrt(29)
      ['back_x', 2, 0, 'in', true], // delta x is -2: the absolute value is compared
      ['rise_z', 4, 0, 'in', true],
      ['faces', 4, 0, 'in', true],
    ]);
    expect(output.checks[0].feature).toBe('distance origin -> far (between points)');
    expect(output.checks[3].feature).toBe('distance bottom -> top (between centroids)');
  });

  it('measures named areas, volumes and curve lengths (case-insensitive names) and totals', async () => {
    const { output } = await run({
      geo: GEO,
      checks: [
        check({ name: 'top', kind: 'area', group: 'TOP', nominal: 6, tolerance_plus: 0.01 }),
        check({ name: 'skin', kind: 'area', nominal: 52, tolerance_plus: 0.5 }),
        check({ name: 'body', kind: 'volume', group: 'body', nominal: 24, tolerance_plus: 0.1 }),
        check({ name: 'hole', kind: 'length', group: 'hole_edge', nominal: 6.3, tolerance_plus: 0.01 }),
      ],
    });
    expect(output.checks.map((c) => [c.name, c.unit, c.measured, c.deviation, c.status])).toEqual([
      ['top', 'mm^2', 6, 0, 'pass'],
      ['skin', 'mm^2', 52, 0, 'pass'],
      ['body', 'mm^3', 24, 0, 'pass'],
      ['hole', 'mm', 6.283185307, -0.016814693, 'fail'], // 2*pi*1 mm: 0.0168 below 6.3, tolerance 0.01
    ]);
  });

  it('reports a named group the model does not have as not measured, listing the groups it has', async () => {
    const { output } = await run({
      geo: GEO,
      checks: [
        check({ name: 'flange', kind: 'area', group: 'flange', nominal: 6 }),
        check({ name: 'rib', kind: 'volume', group: 'rib', nominal: 6 }),
        check({ name: 'slot', kind: 'length', group: 'slot', nominal: 6 }),
      ],
    });
    expect(output.checks.map((c) => [c.status, c.measured, c.deviation, c.passed])).toEqual([
      ['not_measured', null, null, false],
      ['not_measured', null, null, false],
      ['not_measured', null, null, false],
    ]);
    expect(output.checks[0].message).toBe(
      "flange: NOT MEASURED, area of flange: 'flange' is not a Physical Surface of the model (physical surfaces: bottom, top)",
    );
    expect(output.checks[1].message).toContain('(physical volumes: body)');
    expect(output.checks[2].message).toContain('(physical curves: hole_edge)');
    expect(output.passed).toBe(false);
    expect(output.checks_not_measured).toBe(3);
    expect(output.warnings).toEqual(['3 check(s) could not be measured; see their messages']);
  });

  it('cannot measure volumes, areas or lengths of built-in kernel geometry, but checks its extents', async () => {
    const builtIn = {
      ...boxResult(),
      volume: null,
      surface_area: null,
      volumes: {},
      surface_areas: {},
      curve_lengths: {},
      kernel: 'built-in',
      warnings: ['the model uses the built-in geometry kernel: volumes, areas and centroids need SetFactory("OpenCASCADE")'],
    };
    const { output } = await run(
      {
        geo: 'Point(1) = {0, 0, 0, 1};',
        checks: [
          check({ name: 'z', kind: 'bounding_box', axis: 'z', nominal: 4 }),
          check({ name: 'v', kind: 'volume', nominal: 24 }),
          check({ name: 'a', kind: 'area', group: 'top', nominal: 6 }),
          check({ name: 'l', kind: 'length', group: 'edge', nominal: 2 }),
        ],
      },
      builtIn,
    );
    expect(output.checks.map((c) => c.status)).toEqual(['pass', 'not_measured', 'not_measured', 'not_measured']);
    expect(output.checks[2].message).toContain('built-in kernel');
    expect(output.volume).toBeNull();
    expect(output.kernel).toBe('built-in');
    expect(output.warnings).toHaveLength(2);
  });

  it('sends geo and/or step with a time limit, and no distances when none are checked', async () => {
    let seenTimeout: number | undefined;
    const { context } = await run(
      { step: 'ISO-10303-21;\nEND-ISO-10303-21;\n', checks: [check({ kind: 'bounding_box', axis: 'x', nominal: 2 })] },
      (_params, options) => {
        seenTimeout = options?.timeoutMs;
        return boxResult();
      },
    );
    expect(context.toolCalls).toEqual([
      { toolId: MEASURE_TOOL, params: { step: 'ISO-10303-21;\nEND-ISO-10303-21;\n', timeout_seconds: 90 } },
    ]);
    expect(seenTimeout).toBe(100_000);
    const both = await run({ geo: 'Merge "model.step";', step: 'ISO', checks: [check({ kind: 'bounding_box', axis: 'x', nominal: 2 })] });
    expect(both.context.toolCalls[0].params).toMatchObject({ geo: 'Merge "model.step";', step: 'ISO' });
  });

  it('fails preconditions without geometry, with duplicate check names or without the tool', async () => {
    const input = CheckTolerancesInput.parse({
      checks: [check({ name: 'a', kind: 'bounding_box', axis: 'x' }), check({ name: 'a', kind: 'bounding_box', axis: 'y' })],
    });
    const handler = new CheckTolerancesHandler(createTestContext({ tools: {} }));
    expect(await handler.validatePreconditions(input)).toEqual([
      'give the geometry as geo (a .geo script) or step (STEP contents)',
      "check name 'a' is used more than once; names must be unique",
      `geometry measurement tool (${MEASURE_TOOL}) is not available`,
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    const ok = new CheckTolerancesHandler(createTestContext({ tools: { [MEASURE_TOOL]: boxTool } }));
    expect(await ok.validatePreconditions(CheckTolerancesInput.parse({ geo: GEO, checks: [check({ kind: 'volume' })] }))).toEqual([]);
  });

  it('propagates a tool error (e.g. a distance to a group the model lacks)', async () => {
    const error = new McpToolError(MEASURE_TOOL, "'hole' is not a physical group of the model (groups: origin, far)");
    const failure = await run({ geo: GEO, checks: [check({ kind: 'distance', from: 'origin', to: 'hole' })] }, () => {
      throw error;
    }).catch((e: unknown) => e);
    expect(failure).toBe(error);
  });

  it.each([
    ['no bounding box', { ...boxResult(), bounding_box: undefined }, 'bounding_box'],
    ['a two-component box', { ...boxResult(), bounding_box: { min: [0, 0], max: [2, 3], size: [2, 3] } }, 'bounding_box.min'],
    ['an unknown kernel', { ...boxResult(), kernel: 'parasolid' }, 'kernel'],
    ['a text answer', { text: 'Box volume is 24' }, 'bounding_box'],
  ])('refuses a tool result with %s as SkillExecutionError', async (_case, result, where) => {
    const failure = await run({ geo: GEO, checks: [check({ kind: 'bounding_box', axis: 'x' })] }, result as Record<string, unknown>).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain(`${MEASURE_TOOL} returned a result this skill cannot read`);
    expect((failure as Error).message).toContain(where);
  });

  it('refuses a result with fewer distances than asked for', async () => {
    const failure = await run({ geo: GEO, checks: [check({ kind: 'distance', from: 'origin', to: 'far' })] }, boxResult()).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toBe('gmsh.measure returned 0 distance(s) for the 1 asked for');
  });

  it('validates checks at the schema', () => {
    const parse = (c: Record<string, unknown>) => CheckTolerancesInput.safeParse({ geo: GEO, checks: [c] }).success;
    expect(parse(check({ kind: 'bounding_box', axis: 'x' }))).toBe(true);
    expect(parse(check({ kind: 'bounding_box', axis: 'w' }))).toBe(false);
    expect(parse(check({ kind: 'diameter', group: 'hole' }))).toBe(false);
    expect(parse(check({ kind: 'length' }))).toBe(false); // a curve length needs its group
    expect(parse(check({ kind: 'distance', from: 'a' }))).toBe(false);
    expect(parse(check({ kind: 'volume', tolerance_plus: -0.1 }))).toBe(false);
    expect(parse(check({ kind: 'volume', tolerance_minus: -0.1 }))).toBe(false);
    expect(CheckTolerancesInput.safeParse({ geo: GEO, checks: [] }).success).toBe(false);
    expect(CheckTolerancesInput.parse({ geo: GEO, checks: [check({ kind: 'volume' })] }).length_unit).toBe('mm');
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(CheckTolerancesInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(CheckTolerancesOutput, 'output'))).toEqual([]);
  });

  it('declares gmsh.measure (standing in for the seed freecad.measure)', () => {
    expect(definition.tools_required).toEqual([{ tool_id: MEASURE_TOOL, capability: 'geometry_measurement', required: true }]);
  });

  it('returns the declared output of the OpenCASCADE block example from the numbers gmsh gives for it', async () => {
    const [example] = definition.examples;
    const { output } = await run(example.input);
    expect(output).toEqual(example.output);
  });

  it('returns the declared output of the built-in kernel example', async () => {
    const example = definition.examples[1];
    const builtIn = {
      ...boxResult(),
      volume: null,
      surface_area: null,
      volumes: {},
      surface_areas: {},
      kernel: 'built-in',
      warnings: ['the model uses the built-in geometry kernel: volumes, areas and centroids need SetFactory("OpenCASCADE")'],
    };
    const { output } = await run(example.input, builtIn);
    expect(output).toEqual(example.output);
  });
});
