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
import { RunCircuitSimHandler, SPICE_TOOL } from './handler.js';
import { eng, interpolate, unitOfVector } from './measure.js';
import { RunCircuitSimInput, RunCircuitSimOutput } from './schema.js';
import type { RunCircuitSimOutput as Output } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  tools_required: unknown[];
  examples: { description: string; input: Record<string, unknown>; output: Output }[];
};

const NETLIST = 'RC\nV1 in 0 DC 5 AC 1\nR1 in out 1k\nC1 out 0 159.155n\n.end\n';

/** One analysis of a spice.simulate result. */
function real(type: 'op' | 'dc' | 'tran', scale: number[] | null, vectors: Record<string, number[]>) {
  const points = Object.values(vectors)[0].length;
  const scaleOf = { op: null, dc: { name: 'v-sweep', unit: 'V' }, tran: { name: 'time', unit: 's' } }[type];
  return { type, scale: scaleOf && scale ? { ...scaleOf, values: scale } : null, points, vectors, complex_vectors: {} };
}

function acAnalysis(frequencies: number[], series: Record<string, { db: number[]; phase?: number[] }>) {
  const complex = Object.fromEntries(
    Object.entries(series).map(([name, { db, phase }]) => [
      name,
      { magnitude: db.map((d) => 10 ** (d / 20)), magnitude_db: db, phase_deg: phase ?? db.map(() => 0), real: [], imag: [] },
    ]),
  );
  return {
    type: 'ac',
    scale: { name: 'frequency', unit: 'Hz', values: frequencies },
    points: frequencies.length,
    vectors: {},
    complex_vectors: complex,
  };
}

const result = (...analyses: unknown[]) => ({ analyses, warnings: [], solver_time_seconds: 0.01, ngspice_version: '42' });

async function run(raw: Record<string, unknown>, tool: FakeTool) {
  const context = createTestContext({ tools: { [SPICE_TOOL]: tool } });
  const output = await new RunCircuitSimHandler(context).execute(RunCircuitSimInput.parse({ netlist: NETLIST, ...raw }));
  return { output: RunCircuitSimOutput.parse(output), context };
}

// An idealised low-pass: flat 0 dB up to 100 Hz, then -20 dB/decade. In log f the dB curve is piecewise linear, so
// interpolation is exact: -3 dB at 100·10^(3/20) = 141.2538 Hz; -10 dB at 100·10^0.5 = 316.2278 Hz.
const DECADES = [10, 100, 1000, 10000];
const IDEAL_DB = [0, 0, -20, -40];
const AC_INPUT = { analyses: [{ type: 'ac', variation: 'dec', points: 1, start_hz: 10, stop_hz: 10000 }], vectors: ['v(out)'] };

describe('run_circuit_sim: measurements', () => {
  it('finds the -3 dB corner above the peak by interpolating dB in log frequency', async () => {
    const { output } = await run(
      { ...AC_INPUT, measurements: [{ kind: 'corner_frequency', name: 'f_3db', analysis: 0, vector: 'v(out)' }] },
      result(acAnalysis(DECADES, { 'v(out)': { db: IDEAL_DB } })),
    );
    expect(output.measurements[0]).toEqual({
      name: 'f_3db',
      kind: 'corner_frequency',
      analysis: 0,
      vector: 'v(out)',
      value: 141.2537545, // 100 * 10^(3/20)
      unit: 'Hz',
      message: 'v(out) falls 3 dB below its peak of 0 dB (at 10 Hz) at 141.254 Hz',
    });
  });

  it('finds a high-pass corner below the peak, a custom drop, and reports a corner outside the sweep as null', async () => {
    const highPass = [-40, -20, 0, 0];
    const { output } = await run(
      {
        ...AC_INPUT,
        measurements: [
          { kind: 'corner_frequency', name: 'hp', analysis: 0, vector: 'v(out)', direction: 'below' },
          { kind: 'corner_frequency', name: 'hp_20', analysis: 0, vector: 'v(out)', direction: 'below', drop_db: 20 },
          { kind: 'corner_frequency', name: 'none', analysis: 0, vector: 'v(out)' },
        ],
      },
      result(acAnalysis(DECADES, { 'v(out)': { db: highPass } })),
    );
    expect(output.measurements[0].value).toBe(707.9457844); // 1000 / 10^(3/20)
    expect(output.measurements[1].value).toBe(100); // -20 dB exactly at a grid point: falls below it only at 10 Hz
    expect(output.measurements[2]).toMatchObject({ value: null, unit: 'Hz' });
    expect(output.measurements[2].message).toBe(
      'v(out) stays within 3 dB of its peak of 0 dB from 1 kHz up to 10 kHz: no corner in the sweep',
    );
  });

  it('reads the AC response at a frequency in dB, degrees or magnitude, and nothing outside the sweep', async () => {
    const { output } = await run(
      {
        ...AC_INPUT,
        measurements: [
          { kind: 'response_at', name: 'db', analysis: 0, vector: 'v(out)', frequency_hz: 316.227766 },
          { kind: 'response_at', name: 'deg', analysis: 0, vector: 'v(out)', frequency_hz: 1000, quantity: 'phase_deg' },
          { kind: 'response_at', name: 'mag', analysis: 0, vector: 'v(out)', frequency_hz: 100, quantity: 'magnitude' },
          { kind: 'response_at', name: 'out', analysis: 0, vector: 'v(out)', frequency_hz: 1e6 },
        ],
      },
      result(acAnalysis(DECADES, { 'v(out)': { db: IDEAL_DB, phase: [0, -45, -90, -90] } })),
    );
    expect(output.measurements.map((m) => [m.value, m.unit])).toEqual([
      [-10, 'dB'], // halfway between 100 Hz (0 dB) and 1 kHz (-20 dB) in log f
      [-90, 'deg'],
      [1, 'V'],
      [null, 'dB'],
    ]);
    expect(output.measurements[3].message).toBe('1 MHz is outside the sweep (10 Hz to 10 kHz)');
  });

  it('interpolates values in DC sweeps (also downwards) and transients, and gives final values', async () => {
    const { output } = await run(
      {
        analyses: [
          { type: 'op' },
          { type: 'dc', source: 'V1', start: 5, stop: 0, step: -2.5 },
          { type: 'tran', step_s: 1e-3, stop_s: 2e-3 },
        ],
        vectors: ['v(out)', 'i(v1)'],
        measurements: [
          { kind: 'final_value', name: 'op', analysis: 0, vector: 'v(out)' },
          { kind: 'value_at', name: 'dc', analysis: 1, vector: 'v(out)', at: 1 },
          { kind: 'value_at', name: 'tran', analysis: 2, vector: 'i(v1)', at: 1.5e-3 },
          { kind: 'value_at', name: 'late', analysis: 2, vector: 'v(out)', at: 3e-3 },
          { kind: 'final_value', name: 'end', analysis: 2, vector: 'V(OUT)' },
        ],
      },
      result(
        real('op', null, { 'v(out)': [2.5], 'i(v1)': [-2.5e-3] }),
        real('dc', [5, 2.5, 0], { 'v(out)': [2.5, 1.25, 0], 'i(v1)': [-5e-3, -2.5e-3, 0] }),
        real('tran', [0, 1e-3, 2e-3], { 'v(out)': [0, 1, 2], 'i(v1)': [0, -1e-3, -3e-3] }),
      ),
    );
    expect(output.measurements.map((m) => [m.name, m.vector, m.value, m.unit])).toEqual([
      ['op', 'v(out)', 2.5, 'V'],
      ['dc', 'v(out)', 0.5, 'V'], // half of the swept 1 V on the divider
      ['tran', 'i(v1)', -2e-3, 'A'],
      ['late', 'v(out)', null, 'V'],
      ['end', 'v(out)', 2, 'V'], // vector names are matched without regard to case
    ]);
    expect(output.measurements[2].message).toBe('i(v1) at time 1.5 ms: -2 mA');
    expect(output.measurements[3].message).toBe('3 ms is outside the time range (0 s to 2 ms)');
  });

  it('times the rise and settling of a first-order step response: tau·ln 9 and tau·ln 50', async () => {
    const time = Array.from({ length: 1001 }, (_, i) => i / 100); // 0..10 s, tau = 1 s
    const v = time.map((t) => 1 - Math.exp(-t));
    const { output } = await run(
      {
        analyses: [{ type: 'tran', step_s: 0.01, stop_s: 10 }],
        vectors: ['v(out)'],
        measurements: [
          { kind: 'rise_time', name: 'rise', analysis: 0, vector: 'v(out)' },
          { kind: 'settling_time', name: 'settle', analysis: 0, vector: 'v(out)' },
          { kind: 'settling_time', name: 'settle_5', analysis: 0, vector: 'v(out)', band_percent: 5 },
        ],
      },
      result(real('tran', time, { 'v(out)': v })),
    );
    // Levels are relative to the step from v(0) = 0 to the last value vf = 1 - e^-10, so v reaches the fraction p of
    // it at t = -ln(1 - p·vf): tau·ln 9, tau·ln 50 and tau·ln 20 up to the e^-10 tail (2e-3 s for the 2 % band).
    // Linear interpolation on the 0.01 s grid is good to about 1e-5 s.
    const vf = 1 - Math.exp(-10);
    const reach = (p: number) => -Math.log(1 - p * vf);
    const [rise, settle, settle5] = output.measurements.map((m) => m.value as number);
    expect(Math.abs(rise - (reach(0.9) - reach(0.1)))).toBeLessThan(1e-4);
    expect(Math.abs(settle - reach(0.98))).toBeLessThan(1e-4);
    expect(Math.abs(settle5 - reach(0.95))).toBeLessThan(1e-4);
    expect(Math.abs(rise - Math.log(9))).toBeLessThan(1e-3);
    expect(Math.abs(settle - Math.log(50))).toBeLessThan(3e-3);
    expect(output.measurements[0].unit).toBe('s');
  });

  it('times an underdamped step that overshoots and settles from above', async () => {
    const { output } = await run(
      {
        analyses: [{ type: 'tran', step_s: 1, stop_s: 6 }],
        vectors: ['v(out)'],
        measurements: [
          { kind: 'rise_time', name: 'rise', analysis: 0, vector: 'v(out)' },
          { kind: 'settling_time', name: 'settle', analysis: 0, vector: 'v(out)' },
        ],
      },
      result(real('tran', [0, 1, 2, 3, 4, 5, 6], { 'v(out)': [0, 1.5, 0.9, 1.05, 0.99, 1, 1] })),
    );
    // 10 % is reached at 0.1/1.5 s, 90 % at 0.9/1.5 s: 0.5333 s. The last point outside ±2 % is 1.05 at 3 s; the
    // response enters the band (1.02) at 3 + 0.03/0.06 = 3.5 s.
    expect(output.measurements.map((m) => m.value)).toEqual([0.5333333333, 3.5]);
  });

  it('gives no rise or settling time without a step, or when the response has not settled', async () => {
    const { output } = await run(
      {
        analyses: [{ type: 'tran', step_s: 1, stop_s: 2 }],
        vectors: ['v(flat)', 'v(ring)'],
        measurements: [
          { kind: 'rise_time', name: 'flat_rise', analysis: 0, vector: 'v(flat)' },
          { kind: 'settling_time', name: 'flat_settle', analysis: 0, vector: 'v(flat)' },
          { kind: 'settling_time', name: 'ring', analysis: 0, vector: 'v(ring)' },
        ],
      },
      result(real('tran', [0, 1, 2], { 'v(flat)': [1, 1, 1], 'v(ring)': [0, 2, 1] })),
    );
    // ring: normalised 0, 2, 1: it is outside the band until its last sample, which defines the final value.
    expect(output.measurements.map((m) => m.value)).toEqual([null, null, null]);
    expect(output.measurements[2].message).toBe(
      'v(ring) enters the ±2 % band only at its last sample: it has not settled within the analysis (simulate longer)',
    );
    expect(output.measurements[0].message).toBe('v(flat) does not change over the analysis: no step to time');
  });

  it('settles a response that enters the band between two samples before the last', async () => {
    const { output } = await run(
      {
        analyses: [{ type: 'tran', step_s: 1, stop_s: 3 }],
        vectors: ['v(a)'],
        measurements: [{ kind: 'settling_time', name: 's', analysis: 0, vector: 'v(a)' }],
      },
      result(real('tran', [10, 11, 12, 13], { 'v(a)': [0, 0.5, 1, 1] })),
    );
    // 98 % is reached between 11 s (50 %) and 12 s (100 %) at 11.96 s: 1.96 s after the analysis starts at 10 s.
    expect(output.measurements[0].value).toBe(1.96);
  });
});

describe('run_circuit_sim', () => {
  it('returns the vectors per analysis with units and summaries, or only summaries', async () => {
    const tool = result(
      real('op', null, { 'v(out)': [5], 'i(v1)': [0] }),
      acAnalysis(DECADES, { 'v(out)': { db: IDEAL_DB }, 'i(v1)': { db: [-80, -60, -40, -40] } }),
    );
    const input = { analyses: [{ type: 'op' }, AC_INPUT.analyses[0]], vectors: ['v(out)', 'i(v1)'] };
    const { output } = await run(input, tool);
    expect(output.analyses[0]).toEqual({
      index: 0,
      type: 'op',
      scale_name: null,
      scale_unit: null,
      points: 1,
      scale: [],
      signals: [
        { vector: 'v(out)', unit: 'V', values: [5], min: 5, max: 5, final: 5 },
        { vector: 'i(v1)', unit: 'A', values: [0], min: 0, max: 0, final: 0 },
      ],
      ac_signals: [],
    });
    expect(output.analyses[1]).toMatchObject({
      type: 'ac',
      scale_name: 'frequency',
      scale_unit: 'Hz',
      points: 4,
      scale: DECADES,
      signals: [],
    });
    expect(output.analyses[1].ac_signals[0]).toMatchObject({
      vector: 'v(out)',
      magnitude_db: IDEAL_DB,
      peak_magnitude_db: 0,
      peak_frequency_hz: 10,
    });
    expect(output.analyses[1].ac_signals[1]).toMatchObject({ unit: 'A', peak_magnitude_db: -40, peak_frequency_hz: 1000 });

    const { output: brief } = await run({ ...input, return_vectors: false }, tool);
    expect(brief.analyses[0].signals[0]).toEqual({ vector: 'v(out)', unit: 'V', values: [], min: 5, max: 5, final: 5 });
    expect(brief.analyses[1].scale).toEqual([]);
    expect(brief.analyses[1].ac_signals[0]).toMatchObject({ magnitude: [], magnitude_db: [], phase_deg: [], peak_frequency_hz: 10 });
  });

  it('sends the netlist, analyses, vectors, include files, point limit and a time limit to spice.simulate', async () => {
    let seenTimeout: number | undefined;
    const input = {
      netlist: 'amp\n.include models/opamp.lib\nX1 in out opamp\n.end\n',
      analyses: [{ type: 'tran', step_s: 1e-6, stop_s: 1e-3, max_step_s: 1e-7 }],
      vectors: ['v(out)'],
      include_files: [{ name: 'models/opamp.lib', content: '.subckt opamp a b\n.ends\n' }],
      max_points: 2000,
    };
    const { context } = await run(input, (_params, options) => {
      seenTimeout = options?.timeoutMs;
      return result(real('tran', [0, 1e-3], { 'v(out)': [0, 1] }));
    });
    expect(context.toolCalls).toEqual([{ toolId: SPICE_TOOL, params: { ...input, timeout_seconds: 100 } }]);
    expect(seenTimeout).toBe(110_000);
  });

  it('checks preconditions: analysis index and type, vector, unique names, rise levels, tool available', async () => {
    const input = RunCircuitSimInput.parse({
      netlist: NETLIST,
      analyses: [{ type: 'op' }, { type: 'tran', step_s: 1e-6, stop_s: 1e-3 }],
      vectors: ['v(out)'],
      measurements: [
        { kind: 'corner_frequency', name: 'a', analysis: 1, vector: 'v(out)' },
        { kind: 'final_value', name: 'a', analysis: 2, vector: 'v(in)' },
        { kind: 'rise_time', name: 'r', analysis: 1, vector: 'v(out)', low_percent: 90, high_percent: 10 },
      ],
    });
    const handler = new RunCircuitSimHandler(createTestContext({ tools: {} }));
    expect(await handler.validatePreconditions(input)).toEqual([
      'measurements[0] (a): corner_frequency needs a ac analysis, but analysis 1 is tran',
      'measurements[1] (a): the name is used more than once; names must be unique',
      'measurements[1] (a): analysis 2 does not exist (there are 2)',
      "measurements[1] (a): vector 'v(in)' is not among the requested vectors (v(out))",
      'measurements[2] (r): low_percent 90 must be below high_percent 10',
      `SPICE simulation tool (${SPICE_TOOL}) is not available`,
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
    const ok = new RunCircuitSimHandler(createTestContext({ tools: { [SPICE_TOOL]: {} } }));
    expect(
      await ok.validatePreconditions(RunCircuitSimInput.parse({ netlist: NETLIST, analyses: [{ type: 'op' }], vectors: ['v(out)'] })),
    ).toEqual([]);
  });

  it('propagates tool errors and timeouts unchanged', async () => {
    const error = new McpToolError(SPICE_TOOL, 'ngspice produced no results for analyses[0] (op): no such vector v(nowhere)');
    const input = { analyses: [{ type: 'op' }], vectors: ['v(nowhere)'] };
    await expect(
      run(input, () => {
        throw error;
      }),
    ).rejects.toBe(error);
    const timeout = new McpTimeoutError(SPICE_TOOL, 110_000);
    await expect(
      run(input, () => {
        throw timeout;
      }),
    ).rejects.toBe(timeout);
  });

  it.each([
    ['fewer analyses', result(), '0 analysis result(s) for 1 analyses'],
    ['another analysis type', result(real('op', null, { 'v(out)': [1] })), 'analyses[0] is op, expected tran'],
    ['a missing vector', result(real('tran', [0, 1], { 'v(in)': [0, 1] })), "analyses[0] lacks 2 values of 'v(out)'"],
    [
      'a short scale',
      result({ ...real('tran', [0, 1], { 'v(out)': [0, 1] }), scale: { name: 'time', unit: 's', values: [0] } }),
      'no scale with 2 values',
    ],
    ['a NaN value', result(real('tran', [0, 1], { 'v(out)': [0, NaN] })), 'analyses.0.vectors.v(out).1'],
    ['no analyses at all', { text: 'ngspice done' }, 'analyses'],
  ])('refuses a tool result with %s as SkillExecutionError', async (_case, tool, message) => {
    const failure = await run(
      { analyses: [{ type: 'tran', step_s: 1, stop_s: 1 }], vectors: ['v(out)'] },
      tool as Record<string, unknown>,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(SkillExecutionError);
    expect((failure as Error).message).toContain(`${SPICE_TOOL} returned a result this skill cannot read`);
    expect((failure as Error).message).toContain(message);
  });

  it('validates its input at the schema', () => {
    const base = { netlist: NETLIST, analyses: [{ type: 'op' }], vectors: ['v(out)'] };
    expect(RunCircuitSimInput.parse(base)).toMatchObject({ return_vectors: true, measurements: [] });
    expect(RunCircuitSimInput.safeParse({ ...base, analyses: [] }).success).toBe(false);
    expect(RunCircuitSimInput.safeParse({ ...base, analyses: [{ type: 'noise' }] }).success).toBe(false);
    expect(
      RunCircuitSimInput.safeParse({ ...base, analyses: [{ type: 'ac', variation: 'dec', points: 10, start_hz: 0, stop_hz: 1 }] }).success,
    ).toBe(false);
    expect(
      RunCircuitSimInput.safeParse({ ...base, measurements: [{ kind: 'overshoot', name: 'o', analysis: 0, vector: 'v(out)' }] }).success,
    ).toBe(false);
    const corner = RunCircuitSimInput.parse({
      ...base,
      measurements: [{ kind: 'corner_frequency', name: 'f', analysis: 0, vector: 'v(out)' }],
    });
    expect(corner.measurements[0]).toMatchObject({ drop_db: 3, direction: 'above' });
  });

  it('formats values with SI prefixes in messages and knows vector units', () => {
    expect(eng(0.0003496337138, 's')).toBe('349.634 us');
    expect(eng(997.438571, 'Hz')).toBe('997.439 Hz');
    expect(eng(1.5e6, 'Hz')).toBe('1.5 MHz');
    expect(eng(-0.002, 'A')).toBe('-2 mA');
    expect(eng(-3.0103015, 'dB')).toBe('-3.0103 dB');
    expect(eng(0, 's')).toBe('0 s');
    expect([unitOfVector('v(out)'), unitOfVector('I(V1)'), unitOfVector('@m1[id]')]).toEqual(['V', 'A', '']);
    expect(interpolate([3, 2, 1], [30, 20, 10], 1.5)).toBe(15);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(RunCircuitSimInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(RunCircuitSimOutput, 'output'))).toEqual([]);
  });

  it('declares spice.simulate', () => {
    expect(definition.tools_required).toEqual([{ tool_id: SPICE_TOOL, capability: 'circuit_simulation', required: true }]);
  });

  it('reproduces the declared AC example output from the vectors ngspice returned in it', async () => {
    const example = definition.examples[0];
    const declared = example.output;
    const [op, ac] = declared.analyses;
    const frequencies = ac.scale;
    const series = ac.ac_signals[0];
    const tool = result(real('op', null, { 'v(out)': op.signals[0].values }), {
      type: 'ac',
      scale: { name: 'frequency', unit: 'Hz', values: frequencies },
      points: frequencies.length,
      vectors: {},
      complex_vectors: { 'v(out)': { magnitude: series.magnitude, magnitude_db: series.magnitude_db, phase_deg: series.phase_deg } },
    });
    const { output } = await run(example.input, tool);
    expect(output).toEqual(declared);
    // Hand check of the declared numbers: f_c = 1/(2πRC) = 1000 Hz (0.3 % interpolation error at 10 points per decade).
    const f3db = declared.measurements.find((m) => m.name === 'f_3db')!.value as number;
    expect(Math.abs(f3db - 1000) / 1000).toBeLessThan(0.005);
  });

  it('computes the declared transient measurements from the analytic RC step response on the same grid', async () => {
    const example = definition.examples[1];
    const tau = 1000 * 159.155e-9;
    const time = Array.from({ length: 1001 }, (_, i) => (i * tau) / 100);
    const { output } = await run(example.input, result(real('tran', time, { 'v(out)': time.map((t) => 1 - Math.exp(-t / tau)) })));
    // ngspice's integration (steps of tau/200) agrees with the exact exponential to better than 0.1 %.
    output.measurements.forEach((measurement, index) => {
      const declared = example.output.measurements[index];
      expect(measurement.name).toBe(declared.name);
      expect(Math.abs((measurement.value as number) - (declared.value as number)) / Math.abs(declared.value as number)).toBeLessThan(1e-3);
    });
    expect(example.output.analyses[0].signals[0].values).toEqual([]); // return_vectors: false
  });
});
