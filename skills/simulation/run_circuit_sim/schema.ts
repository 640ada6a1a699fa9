import { z } from '@skill-registry/sdk';

const op = z.object({ type: z.literal('op').describe('DC operating point: every requested vector as a single value') }).strict();
const dc = z
  .object({
    type: z.literal('dc').describe('DC sweep of one independent source'),
    source: z.string().min(1).describe('Name of the independent voltage or current source to sweep, e.g. V1'),
    start: z.number().describe('First sweep value, in volts (voltage source) or amperes (current source)'),
    stop: z.number().describe('Last sweep value, in volts or amperes'),
    step: z.number().describe('Sweep increment, in volts or amperes (negative to sweep downwards)'),
  })
  .strict();
const ac = z
  .object({
    type: z
      .literal('ac')
      .describe('Small-signal AC analysis around the operating point (needs a source with an AC magnitude, e.g. "AC 1")'),
    variation: z.enum(['dec', 'oct', 'lin']).describe('Frequency spacing: points per decade, per octave, or linear'),
    points: z.number().int().min(1).max(100_000).describe('Points per decade or octave, or the total number of points for lin'),
    start_hz: z.number().positive().describe('Start frequency in hertz'),
    stop_hz: z.number().positive().describe('Stop frequency in hertz'),
  })
  .strict();
const tran = z
  .object({
    type: z.literal('tran').describe('Transient analysis; results are resampled onto a uniform time grid of step_s'),
    step_s: z.number().positive().describe('Output time step in seconds (also the resampling grid)'),
    stop_s: z.number().positive().describe('End time in seconds'),
    start_s: z.number().min(0).optional().describe('Time in seconds from which results are kept (default 0)'),
    max_step_s: z.number().positive().optional().describe('Largest internal time step in seconds (default chosen by ngspice)'),
  })
  .strict();

export const Analysis = z.discriminatedUnion('type', [op, dc, ac, tran]);

/** Fields every measurement has. */
const measured = {
  name: z.string().min(1).max(100).describe('Name of the measurement, unique within the call (e.g. "f_3db" or "t_rise")'),
  analysis: z.number().int().min(0).describe('Index (0-based) of the analysis in analyses the measurement reads'),
  vector: z.string().min(1).describe('Vector to measure, one of vectors (e.g. "v(out)")'),
};

export const CornerFrequency = z
  .object({
    kind: z
      .literal('corner_frequency')
      .describe('AC: frequency in Hz where the magnitude has fallen drop_db below its peak (the -3 dB corner or bandwidth edge)'),
    ...measured,
    drop_db: z.number().positive().default(3).describe('Drop below the peak magnitude, in dB (default 3)'),
    direction: z
      .enum(['above', 'below'])
      .default('above')
      .describe(
        'Search upwards from the peak (low-pass corner, upper band edge; default) or downwards (high-pass corner, lower band edge)',
      ),
  })
  .strict();

export const ResponseAt = z
  .object({
    kind: z
      .literal('response_at')
      .describe('AC: magnitude in dB, phase in degrees or magnitude at one frequency (interpolated in log frequency)'),
    ...measured,
    frequency_hz: z.number().positive().describe('Frequency in Hz'),
    quantity: z
      .enum(['magnitude_db', 'phase_deg', 'magnitude'])
      .default('magnitude_db')
      .describe('magnitude_db (dB, default), phase_deg (degrees) or magnitude (unit of the vector)'),
  })
  .strict();

export const ValueAt = z
  .object({
    kind: z.literal('value_at').describe('DC sweep or transient: value of the vector at one sweep value or time (linear interpolation)'),
    ...measured,
    at: z.number().describe('Sweep value (V or A) or time (s) to read the vector at'),
  })
  .strict();

export const FinalValue = z
  .object({
    kind: z.literal('final_value').describe('Operating point, DC sweep or transient: the last value of the vector'),
    ...measured,
  })
  .strict();

export const RiseTime = z
  .object({
    kind: z
      .literal('rise_time')
      .describe('Transient: time in s from the first crossing of low_percent to the first crossing of high_percent of the step'),
    ...measured,
    low_percent: z
      .number()
      .min(0)
      .max(100)
      .default(10)
      .describe('Lower level, percent of the step from the first to the final value (default 10)'),
    high_percent: z.number().min(0).max(100).default(90).describe('Upper level, percent of the step (default 90)'),
  })
  .strict();

export const SettlingTime = z
  .object({
    kind: z
      .literal('settling_time')
      .describe(
        'Transient: time in s from the start of the analysis after which the vector stays within band_percent of the step around its final value',
      ),
    ...measured,
    band_percent: z.number().positive().max(100).default(2).describe('Settling band, percent of the step size (default 2)'),
  })
  .strict();

export const Measurement = z.discriminatedUnion('kind', [CornerFrequency, ResponseAt, ValueAt, FinalValue, RiseTime, SettlingTime]);

export const RunCircuitSimInput = z
  .object({
    netlist: z
      .string()
      .min(1)
      .describe(
        'SPICE netlist text; the first line is the title. Elements, models, .param, .options, .include of include_files. No .control ' +
          'block and no analysis cards (.op/.dc/.ac/.tran): the analyses are given in analyses',
      ),
    analyses: z.array(Analysis).min(1).max(10).describe('Analyses to run, in order'),
    vectors: z
      .array(z.string().min(1).max(100).describe('A vector in ngspice syntax: v(node), v(a,b), i(vsource) or @device[param]'))
      .min(1)
      .max(50)
      .describe('Vectors to return for every analysis (node voltages in V, source currents in A)'),
    include_files: z
      .array(
        z
          .object({
            name: z
              .string()
              .min(1)
              .describe('Relative file name the netlist includes (e.g. "models/opamp.lib"); no absolute paths, no ".."'),
            content: z.string().describe('Contents of the file (SPICE text)'),
          })
          .strict(),
      )
      .max(20)
      .optional()
      .describe('Model libraries and subcircuits the netlist pulls in with .include or .lib'),
    max_points: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('Largest number of points one analysis may return (default 10000); larger analyses are refused before running'),
    return_vectors: z
      .boolean()
      .default(true)
      .describe('Return the full vectors (default true); false returns only per-vector summaries and the measurements'),
    measurements: z.array(Measurement).max(100).default([]).describe('Derived measurements to compute from the vectors (none by default)'),
  })
  .strict();

const series = (what: string) => z.array(z.number().describe(`${what} at one point`));

export const RealSignal = z.object({
  vector: z.string().describe('Vector name as requested'),
  unit: z.string().describe('Unit of the vector: V for v(...), A for i(...), empty when unknown'),
  values: series('Value in unit').describe('One value per point of the analysis (empty when return_vectors is false)'),
  min: z.number().describe('Smallest value, in unit'),
  max: z.number().describe('Largest value, in unit'),
  final: z.number().describe('Last value, in unit (the only value for op)'),
});

export const AcSignal = z.object({
  vector: z.string().describe('Vector name as requested'),
  unit: z.string().describe('Unit of the vector magnitude: V for v(...), A for i(...), empty when unknown'),
  magnitude: series('Magnitude in unit').describe('Magnitude per frequency point (empty when return_vectors is false)'),
  magnitude_db: series('Magnitude in dB').describe('20·log10(magnitude) per frequency point, dB (empty when return_vectors is false)'),
  phase_deg: series('Phase in degrees').describe(
    'Phase per frequency point in degrees, in (-180, 180] (empty when return_vectors is false)',
  ),
  peak_magnitude_db: z.number().describe('Largest magnitude over the sweep, in dB'),
  peak_frequency_hz: z.number().describe('Frequency of the largest magnitude in Hz (the first one on ties)'),
});

export const AnalysisResult = z.object({
  index: z.number().int().describe('Index of the analysis in the input'),
  type: z.enum(['op', 'dc', 'ac', 'tran']).describe('Analysis type'),
  scale_name: z.string().nullable().describe('ngspice name of the independent variable (time, frequency, v-sweep, i-sweep); null for op'),
  scale_unit: z.string().nullable().describe('Unit of the independent variable: s, Hz, V or A; null for op'),
  points: z.number().int().describe('Number of points'),
  scale: series('Scale value in scale_unit').describe('Independent variable per point (empty for op or when return_vectors is false)'),
  signals: z.array(RealSignal).describe('Real-valued vectors (op, dc, tran); empty for ac'),
  ac_signals: z.array(AcSignal).describe('Complex vectors as magnitude and phase (ac); empty otherwise'),
});

export const MeasurementResult = z.object({
  name: z.string().describe('Name of the measurement, as given'),
  kind: z
    .enum(['corner_frequency', 'response_at', 'value_at', 'final_value', 'rise_time', 'settling_time'])
    .describe('Kind of measurement'),
  analysis: z.number().int().describe('Index of the analysis measured'),
  vector: z.string().describe('Vector measured'),
  value: z
    .number()
    .nullable()
    .describe('Measured value in unit (10 significant digits); null when it does not exist in the results (see message)'),
  unit: z.string().describe('Unit of value: Hz, dB, deg, s, or the unit of the vector'),
  message: z.string().describe('One line: the value with how it was found, or why there is none'),
});

export const RunCircuitSimOutput = z.object({
  analyses: z.array(AnalysisResult).describe('One result per analysis, in input order'),
  measurements: z.array(MeasurementResult).describe('One result per measurement, in input order'),
  warnings: z.array(z.string().describe('One warning')).describe('Warnings ngspice printed (e.g. gmin stepping, timestep too small)'),
});

export type Analysis = z.infer<typeof Analysis>;
export type Measurement = z.infer<typeof Measurement>;
export type RunCircuitSimInput = z.infer<typeof RunCircuitSimInput>;
export type RealSignal = z.infer<typeof RealSignal>;
export type AcSignal = z.infer<typeof AcSignal>;
export type AnalysisResult = z.infer<typeof AnalysisResult>;
export type MeasurementResult = z.infer<typeof MeasurementResult>;
export type RunCircuitSimOutput = z.infer<typeof RunCircuitSimOutput>;
