import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SkillExecutionError, createTestContext, findUndescribedProperties, toJsonSchema } from '@skill-registry/sdk';
import { CompareResultsHandler } from './handler.js';
import { CompareResultsInput, CompareResultsOutput } from './schema.js';

const definition = JSON.parse(readFileSync(new URL('./definition.json', import.meta.url), 'utf8')) as {
  examples: { description: string; input: unknown; output: unknown }[];
};

async function run(raw: unknown) {
  const input = CompareResultsInput.parse(raw);
  const handler = new CompareResultsHandler(createTestContext());
  const output = await handler.execute(input);
  return CompareResultsOutput.parse(output);
}

function signal(name: string, ref: [number[], number[]], res: [number[], number[]], extra: object = {}) {
  return { name, reference: { x: ref[0], y: ref[1] }, result: { x: res[0], y: res[1] }, ...extra };
}

describe('compare_results', () => {
  it('passes identical series on the same grid with zero error', async () => {
    const out = await run({
      abs_tol: 0,
      rel_tol: 0,
      signals: [
        signal(
          'v',
          [
            [0, 1, 2],
            [1, 2, 3],
          ],
          [
            [0, 1, 2],
            [1, 2, 3],
          ],
        ),
      ],
    });
    const s = out.signals[0];
    expect(out.passed).toBe(true);
    expect(s.compared_points).toBe(3);
    expect(s.max_abs_error).toBe(0);
    expect(s.max_rel_error).toBe(0);
    expect(s.rms_error).toBe(0);
    expect(s.out_of_tolerance_count).toBe(0);
  });

  it('interpolates the result linearly at the reference x points and counts points outside the overlap', async () => {
    // result: y = 2x on [0, 2], then 8.5 at x = 4  ->  at x = 3 the result is 4 + 0.5 * 4.5 = 6.25
    const out = await run({
      abs_tol: 0.25,
      rel_tol: 0.0625,
      signals: [
        signal(
          'v',
          [
            [0, 1, 2, 3, 4, 5],
            [0, 2, 4, 6, 8, 10],
          ],
          [
            [0, 2, 4],
            [0, 4, 8.5],
          ],
          { unit: 'V', x_unit: 's' },
        ),
      ],
    });
    const s = out.signals[0];
    expect(s.compared_points).toBe(5);
    expect(s.points_outside_overlap).toBe(1);
    expect([s.overlap_x_min, s.overlap_x_max]).toEqual([0, 4]);
    expect(s.max_abs_error).toBe(0.5);
    expect(s.max_rel_error).toBe(0.0625);
    expect(s.rms_error).toBe(0.25); // sqrt((0.25^2 + 0.5^2) / 5)
    expect(s.worst_point).toEqual({
      x: 4,
      reference_y: 8,
      result_y: 8.5,
      abs_error: 0.5,
      rel_error: 0.0625,
      allowed_error: 0.75,
      within_tolerance: true,
    });
    expect(s.passed).toBe(true);
    expect(s.message).toContain('1 reference point(s) outside');
  });

  it('passes a point exactly at the tolerance limit and fails one just above it', async () => {
    // allowed = 0.25 + 0.125 * 2 = 0.5 ; |2.5 - 2| = 0.5 exactly
    const atLimit = await run({ abs_tol: 0.25, rel_tol: 0.125, signals: [signal('s', [[0], [2]], [[0], [2.5]])] });
    expect(atLimit.signals[0].out_of_tolerance_count).toBe(0);
    expect(atLimit.passed).toBe(true);
    const above = await run({ abs_tol: 0.25, rel_tol: 0.125, signals: [signal('s', [[0], [2]], [[0], [2.5625]])] });
    expect(above.signals[0].out_of_tolerance_count).toBe(1);
    expect(above.passed).toBe(false);
    expect(above.signals[0].worst_point?.within_tolerance).toBe(false);
  });

  it('counts out-of-tolerance points and reports the worst one relative to its allowed error', async () => {
    // allowed = 1 + 0.1 * |ref|: at ref 100 -> 11 (error 10 ok), at ref 10 -> 2 (error 4 fails, ratio 2), at ref 0 -> 1 (error 1.5 fails, ratio 1.5)
    const out = await run({
      abs_tol: 1,
      rel_tol: 0.1,
      signals: [
        signal(
          'p',
          [
            [0, 1, 2],
            [100, 10, 0],
          ],
          [
            [0, 1, 2],
            [110, 14, 1.5],
          ],
          { unit: 'W' },
        ),
      ],
    });
    const s = out.signals[0];
    expect(s.out_of_tolerance_count).toBe(2);
    expect(s.max_abs_error).toBe(10);
    expect(s.max_rel_error).toBe(0.4); // ref 0 is excluded from the relative error
    expect(s.worst_point?.x).toBe(1);
    expect(s.worst_point?.allowed_error).toBe(2);
    expect(s.message).toBe(
      'p: FAIL, 2 of 3 point(s) outside |Δ| <= 1 W + 0.1·|ref|; worst at x = 1: result 14 W vs reference 10 W (|Δ| 4 W, allowed 2 W); RMS 6.27827 W', // sqrt((10^2 + 4^2 + 1.5^2) / 3)
    );
    expect(out.failed_signals).toEqual(['p']);
  });

  it('reports a null relative error where the reference is zero', async () => {
    const out = await run({
      abs_tol: 1,
      rel_tol: 0,
      signals: [
        signal(
          'z',
          [
            [0, 1],
            [0, 0],
          ],
          [
            [0, 1],
            [0.5, -0.5],
          ],
        ),
      ],
    });
    const s = out.signals[0];
    expect(s.max_rel_error).toBeNull();
    expect(s.worst_point?.rel_error).toBeNull();
    expect(s.max_abs_error).toBe(0.5);
    expect(s.passed).toBe(true);
  });

  it('fails a signal whose series do not overlap, with nothing compared', async () => {
    const out = await run({
      abs_tol: 1,
      rel_tol: 0,
      signals: [
        signal(
          'late',
          [
            [0, 1],
            [0, 0],
          ],
          [
            [2, 3],
            [0, 0],
          ],
          { x_unit: 's' },
        ),
      ],
    });
    const s = out.signals[0];
    expect(s.passed).toBe(false);
    expect(s.compared_points).toBe(0);
    expect(s.points_outside_overlap).toBe(2);
    expect([s.overlap_x_min, s.max_abs_error, s.rms_error, s.worst_point]).toEqual([null, null, null, null]);
    expect(s.message).toContain('reference x [0, 1] s, result x [2, 3] s');
  });

  it('handles empty series as nothing to compare', async () => {
    const out = await run({ abs_tol: 1, rel_tol: 0, signals: [signal('e', [[], []], [[0], [0]])] });
    expect(out.signals[0].compared_points).toBe(0);
    expect(out.signals[0].points_outside_overlap).toBe(0);
    expect(out.passed).toBe(false);
  });

  it('treats a single-sample result as covering exactly its x', async () => {
    const out = await run({
      abs_tol: 0,
      rel_tol: 0,
      signals: [
        signal(
          'dc',
          [
            [0, 1, 2],
            [5, 5, 5],
          ],
          [[1], [5]],
        ),
      ],
    });
    expect(out.signals[0].compared_points).toBe(1);
    expect(out.signals[0].points_outside_overlap).toBe(2);
    expect(out.passed).toBe(true);
  });

  it('applies per-signal tolerance overrides and lists failed signals in input order', async () => {
    const out = await run({
      abs_tol: 0.1,
      rel_tol: 0,
      signals: [
        signal('a', [[0], [1]], [[0], [1.5]]),
        signal('b', [[0], [1]], [[0], [1.5]], { abs_tol: 0.5 }),
        signal('c', [[0], [10]], [[0], [11]], { rel_tol: 0.1 }),
        signal('d', [[0], [1]], [[0], [2]]),
      ],
    });
    expect(out.signals.map((s) => [s.name, s.passed, s.abs_tol, s.rel_tol])).toEqual([
      ['a', false, 0.1, 0],
      ['b', true, 0.5, 0],
      ['c', true, 0.1, 0.1],
      ['d', false, 0.1, 0],
    ]);
    expect(out.failed_signals).toEqual(['a', 'd']);
    expect(out.signals_compared).toBe(4);
  });

  it('refuses mismatched lengths, non-increasing x and duplicate names', async () => {
    const handler = new CompareResultsHandler(createTestContext());
    const input = CompareResultsInput.parse({
      abs_tol: 0,
      rel_tol: 0,
      signals: [
        signal(
          'a',
          [[0, 1], [0]],
          [
            [0, 1],
            [0, 1],
          ],
        ),
        signal(
          'a',
          [
            [0, 1],
            [0, 1],
          ],
          [
            [1, 1],
            [0, 1],
          ],
        ),
      ],
    });
    const problems = await handler.validatePreconditions(input);
    expect(problems).toEqual([
      "signal 'a' reference: x has 2 values but y has 1; they must have the same length",
      "signal name 'a' is used more than once; names must be unique",
      "signal 'a' result: x must be strictly increasing, but x[1] = 1 follows x[0] = 1",
    ]);
    await expect(handler.execute(input)).rejects.toBeInstanceOf(SkillExecutionError);
  });

  it('rejects an empty signal list and negative tolerances at the schema', () => {
    expect(CompareResultsInput.safeParse({ abs_tol: 0, rel_tol: 0, signals: [] }).success).toBe(false);
    expect(CompareResultsInput.safeParse({ abs_tol: -1, rel_tol: 0, signals: [signal('a', [[0], [0]], [[0], [0]])] }).success).toBe(false);
  });

  it('has JSON Schemas with every property described', () => {
    expect(findUndescribedProperties(toJsonSchema(CompareResultsInput, 'input'))).toEqual([]);
    expect(findUndescribedProperties(toJsonSchema(CompareResultsOutput, 'output'))).toEqual([]);
  });

  it.each(definition.examples.map((e) => [e.description, e] as const))('declared example: %s', async (_d, example) => {
    expect(CompareResultsInput.safeParse(example.input).success).toBe(true);
    const out = await run(example.input);
    expect(out).toEqual(example.output);
    expect(CompareResultsOutput.safeParse(example.output).success).toBe(true);
  });
});
