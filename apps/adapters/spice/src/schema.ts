import * as z from 'zod';

const op = z.object({ type: z.literal('op').describe('DC operating point: every requested vector as a single value') });
const dc = z.object({
  type: z.literal('dc').describe('DC sweep of one independent source'),
  source: z.string().describe('Name of the independent voltage or current source to sweep, e.g. V1'),
  start: z.number().describe('First sweep value, in volts (voltage source) or amperes (current source)'),
  stop: z.number().describe('Last sweep value, in volts or amperes'),
  step: z.number().describe('Sweep increment, in volts or amperes (negative to sweep downwards)'),
});
const ac = z.object({
  type: z.literal('ac').describe('Small-signal AC analysis around the operating point (needs a source with an AC magnitude)'),
  variation: z.enum(['dec', 'oct', 'lin']).describe('Frequency spacing: points per decade, per octave, or linear'),
  points: z.number().int().min(1).max(100_000).describe('Points per decade or octave, or the total number of points for lin'),
  start_hz: z.number().positive().describe('Start frequency in hertz'),
  stop_hz: z.number().positive().describe('Stop frequency in hertz'),
});
const tran = z.object({
  type: z.literal('tran').describe('Transient analysis; results are resampled onto a uniform time grid of step_s'),
  step_s: z.number().positive().describe('Output time step in seconds (also the resampling grid)'),
  stop_s: z.number().positive().describe('End time in seconds'),
  start_s: z.number().min(0).optional().describe('Time in seconds from which results are kept (default 0)'),
  max_step_s: z.number().positive().optional().describe('Largest internal time step in seconds (default chosen by ngspice)'),
});

const spiceAnalysisSchema = z.discriminatedUnion('type', [op, dc, ac, tran]);
export type SpiceAnalysis = z.infer<typeof spiceAnalysisSchema>;

export const simulateInputSchema = z.object({
  netlist: z
    .string()
    .min(1)
    .max(4_000_000)
    .describe(
      'SPICE netlist text (first line is the title, as in every SPICE deck). Elements, models, .param, .options, .include of ' +
        'include_files; no .control block and no analysis cards (.op/.dc/.ac/.tran): analyses are given below',
    ),
  analyses: z.array(spiceAnalysisSchema).min(1).max(10).describe('Analyses to run, in order; each gives one entry of the result'),
  vectors: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(50)
    .describe('Vectors to return for every analysis, in ngspice syntax: v(node), v(a,b), i(vsource), @device[param]'),
  include_files: z
    .array(
      z.object({
        name: z.string().describe('Relative file name the netlist includes (e.g. models/opamp.lib); no absolute paths, no ..'),
        content: z.string().max(4_000_000).describe('File contents'),
      }),
    )
    .max(20)
    .optional()
    .describe('Files the netlist pulls in with .include or .lib, written next to it in the scratch directory'),
  max_points: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe('Largest number of points one analysis may return (default 10000); larger requests are refused before running'),
  timeout_seconds: z.number().positive().max(86_400).optional().describe('Time limit for ngspice in seconds (capped by the adapter limit)'),
});

const complexSeries = z.object({
  real: z.array(z.number()).describe('Real part per frequency point'),
  imag: z.array(z.number()).describe('Imaginary part per frequency point'),
  magnitude: z.array(z.number()).describe('Magnitude per frequency point (same unit as the vector)'),
  magnitude_db: z.array(z.number()).describe('Magnitude in decibels, 20·log10(|x|), floored at -400 dB'),
  phase_deg: z.array(z.number()).describe('Phase in degrees, in (-180, 180]'),
});

const analysisResultSchema = z.object({
  type: z.enum(['op', 'dc', 'ac', 'tran']).describe('Analysis type'),
  scale: z
    .object({
      name: z.string().describe('ngspice name of the scale vector: time, frequency, v-sweep, i-sweep, ...'),
      unit: z.string().describe('Unit of the scale: s, Hz, V, A, or empty when unknown'),
      values: z.array(z.number()).describe('Scale values, one per point'),
    })
    .nullable()
    .describe('Independent variable of the analysis; null for op'),
  points: z.number().int().describe('Number of points'),
  vectors: z
    .record(z.string(), z.array(z.number()))
    .describe('Real-valued results per requested vector (op, dc, tran): one value per point'),
  complex_vectors: z.record(z.string(), complexSeries).describe('Complex results per requested vector (ac only; empty otherwise)'),
});
export type AnalysisResult = z.infer<typeof analysisResultSchema>;

export const simulateOutputSchema = z.object({
  analyses: z.array(analysisResultSchema).describe('One result per requested analysis, in order'),
  warnings: z.array(z.string()).describe('Warnings ngspice printed (e.g. singular matrix, gmin stepping)'),
  solver_time_seconds: z.number().describe('Wall-clock time of the ngspice run in seconds'),
  ngspice_version: z.string().nullable().describe('ngspice version that ran the simulation'),
});
