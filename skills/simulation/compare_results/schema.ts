import { z } from '@skill-registry/sdk';

/** One x/y series: parallel arrays of abscissa and ordinate values. */
export const Series = z
  .object({
    x: z
      .array(z.number().describe('One abscissa value in the signal x_unit (e.g. seconds or hertz)'))
      .describe('Abscissa values (e.g. time in seconds, frequency in hertz), strictly increasing, in the signal x_unit'),
    y: z
      .array(z.number().describe('One ordinate value in the signal unit'))
      .describe('Ordinate values in the signal unit (e.g. volts), one per x value (same length as x)'),
  })
  .strict();

export const SignalComparisonInput = z
  .object({
    name: z.string().min(1).describe('Signal name, unique within the call (e.g. "v_out" or "node_3_temperature")'),
    unit: z.string().optional().describe('Unit of the y values (e.g. "V", "degC"); used only in messages'),
    x_unit: z.string().optional().describe('Unit of the x values (e.g. "s", "Hz"); used only in messages'),
    reference: Series.describe('Reference (expected) series; the comparison is evaluated at its x points'),
    result: Series.describe('Result (simulated) series; linearly interpolated at the reference x points'),
    abs_tol: z
      .number()
      .nonnegative()
      .optional()
      .describe('Absolute tolerance for this signal in the signal unit; overrides the call-level abs_tol'),
    rel_tol: z
      .number()
      .nonnegative()
      .optional()
      .describe('Relative tolerance for this signal as a dimensionless fraction (0.01 = 1 %); overrides the call-level rel_tol'),
  })
  .strict();

export const CompareResultsInput = z
  .object({
    signals: z
      .array(SignalComparisonInput)
      .min(1)
      .describe(
        'Signals to compare. A reference point passes when |result - reference| <= abs_tol + rel_tol * |reference|; ' +
          'the result series is linearly interpolated at each reference x inside the x range both series cover, ' +
          'and reference points outside that range are skipped and counted',
      ),
    abs_tol: z
      .number()
      .nonnegative()
      .describe(
        'Absolute tolerance in each signal unit, used where a signal gives none (pass rule: |Δ| <= abs_tol + rel_tol * |reference|)',
      ),
    rel_tol: z
      .number()
      .nonnegative()
      .describe('Relative tolerance as a dimensionless fraction of |reference| (0.01 = 1 %), used where a signal gives none'),
  })
  .strict();

export const WorstPoint = z.object({
  x: z.number().describe('Reference x of the worst point, in the signal x_unit'),
  reference_y: z.number().describe('Reference value at x, in the signal unit'),
  result_y: z.number().describe('Result value at x (interpolated when the grids differ), in the signal unit'),
  abs_error: z.number().describe('|result_y - reference_y| in the signal unit'),
  rel_error: z.number().nullable().describe('abs_error / |reference_y| as a dimensionless fraction; null when reference_y is 0'),
  allowed_error: z.number().describe('abs_tol + rel_tol * |reference_y| in the signal unit'),
  within_tolerance: z.boolean().describe('Whether abs_error <= allowed_error'),
});

export const SignalComparisonResult = z.object({
  name: z.string().describe('Signal name as given'),
  passed: z.boolean().describe('True when at least one point was compared and every compared point is within tolerance'),
  compared_points: z.number().int().describe('Reference points inside the overlapping x range that were compared'),
  points_outside_overlap: z.number().int().describe('Reference points outside the x range covered by the result series; not compared'),
  overlap_x_min: z
    .number()
    .nullable()
    .describe('Start of the overlapping x range in the signal x_unit; null when the series do not overlap'),
  overlap_x_max: z.number().nullable().describe('End of the overlapping x range in the signal x_unit; null when the series do not overlap'),
  abs_tol: z.number().describe('Absolute tolerance applied, in the signal unit'),
  rel_tol: z.number().describe('Relative tolerance applied, as a dimensionless fraction'),
  max_abs_error: z.number().nullable().describe('Largest |result - reference| in the signal unit; null when nothing was compared'),
  max_rel_error: z
    .number()
    .nullable()
    .describe('Largest |result - reference| / |reference| over points with a non-zero reference, dimensionless; null when there is none'),
  rms_error: z
    .number()
    .nullable()
    .describe('Root mean square of (result - reference) over compared points, in the signal unit; null when nothing was compared'),
  out_of_tolerance_count: z.number().int().describe('Compared points where |result - reference| > abs_tol + rel_tol * |reference|'),
  worst_point: WorstPoint.nullable().describe(
    'Point with the largest error relative to its allowed error (first one on ties); null when nothing was compared',
  ),
  message: z.string().describe('One-line verdict with the numbers an engineer needs to act on'),
});

export const CompareResultsOutput = z.object({
  passed: z.boolean().describe('True when every signal passed'),
  signals_compared: z.number().int().describe('Number of signals in the call'),
  failed_signals: z.array(z.string().describe('Name of a failed signal')).describe('Names of the signals that failed, in input order'),
  signals: z.array(SignalComparisonResult).describe('Per-signal results, in input order'),
});

export type Series = z.infer<typeof Series>;
export type SignalComparisonInput = z.infer<typeof SignalComparisonInput>;
export type CompareResultsInput = z.infer<typeof CompareResultsInput>;
export type WorstPoint = z.infer<typeof WorstPoint>;
export type SignalComparisonResult = z.infer<typeof SignalComparisonResult>;
export type CompareResultsOutput = z.infer<typeof CompareResultsOutput>;
