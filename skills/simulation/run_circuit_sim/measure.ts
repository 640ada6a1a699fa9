import { z } from '@skill-registry/sdk';
import type { AcSignal, AnalysisResult, Measurement, MeasurementResult, RealSignal, RunCircuitSimInput } from './schema.js';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const numbers = z.array(finite);

/** The parts of the spice.simulate result this skill reads. */
export const SimulateResult = z.object({
  analyses: z.array(
    z.object({
      type: z.enum(['op', 'dc', 'ac', 'tran']),
      scale: z.object({ name: z.string(), unit: z.string(), values: numbers }).nullable(),
      points: z.number().int().min(1),
      vectors: z.record(z.string(), numbers),
      complex_vectors: z.record(z.string(), z.object({ magnitude: numbers, magnitude_db: numbers, phase_deg: numbers })),
    }),
  ),
  warnings: z.array(z.string()).optional(),
});
export type SimulateResult = z.infer<typeof SimulateResult>;
type ToolAnalysis = SimulateResult['analyses'][number];

/** Which analysis types each measurement reads. */
const APPLIES_TO: Record<Measurement['kind'], readonly string[]> = {
  corner_frequency: ['ac'],
  response_at: ['ac'],
  value_at: ['dc', 'tran'],
  final_value: ['op', 'dc', 'tran'],
  rise_time: ['tran'],
  settling_time: ['tran'],
};

/** Rounds to 10 significant digits (ngspice writes 12). */
export function round10(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(10));
}

/** Unit of a vector from its ngspice form: v(...) volts, i(...) amperes. */
export function unitOfVector(vector: string): string {
  if (/^v\(/i.test(vector)) return 'V';
  if (/^i\(/i.test(vector)) return 'A';
  return '';
}

/** The requested vector a measurement names (ngspice names are case-insensitive). */
export function resolveVector(vectors: readonly string[], name: string): string | undefined {
  return vectors.find((vector) => vector === name) ?? vectors.find((vector) => vector.toLowerCase() === name.toLowerCase());
}

/** Problems with the input that need no simulation to find. */
export function findInputProblems(input: RunCircuitSimInput): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  input.measurements.forEach((measurement, index) => {
    const where = `measurements[${index}] (${measurement.name})`;
    if (names.has(measurement.name)) problems.push(`${where}: the name is used more than once; names must be unique`);
    names.add(measurement.name);
    const analysis = input.analyses[measurement.analysis];
    if (!analysis) {
      problems.push(`${where}: analysis ${measurement.analysis} does not exist (there are ${input.analyses.length})`);
    } else if (!APPLIES_TO[measurement.kind].includes(analysis.type)) {
      problems.push(
        `${where}: ${measurement.kind} needs a ${APPLIES_TO[measurement.kind].join(' or ')} analysis, but analysis ${measurement.analysis} is ${analysis.type}`,
      );
    }
    if (resolveVector(input.vectors, measurement.vector) === undefined) {
      problems.push(`${where}: vector '${measurement.vector}' is not among the requested vectors (${input.vectors.join(', ')})`);
    }
    if (measurement.kind === 'rise_time' && measurement.low_percent >= measurement.high_percent) {
      problems.push(`${where}: low_percent ${measurement.low_percent} must be below high_percent ${measurement.high_percent}`);
    }
  });
  return problems;
}

/** Check the tool result against the request: one analysis per request, of its type, with every vector at every point. */
export function findResultProblems(input: RunCircuitSimInput, result: SimulateResult): string[] {
  const problems: string[] = [];
  if (result.analyses.length !== input.analyses.length) {
    return [`${result.analyses.length} analysis result(s) for ${input.analyses.length} analyses`];
  }
  result.analyses.forEach((analysis, index) => {
    const where = `analyses[${index}]`;
    if (analysis.type !== input.analyses[index].type) problems.push(`${where} is ${analysis.type}, expected ${input.analyses[index].type}`);
    if (analysis.type !== 'op' && (!analysis.scale || analysis.scale.values.length !== analysis.points)) {
      problems.push(`${where} has no scale with ${analysis.points} values`);
    }
    for (const vector of input.vectors) {
      if (analysis.type === 'ac') {
        const series = analysis.complex_vectors[vector];
        if (!series || [series.magnitude, series.magnitude_db, series.phase_deg].some((values) => values.length !== analysis.points)) {
          problems.push(`${where} lacks ${analysis.points} complex values of '${vector}'`);
        }
      } else if (analysis.vectors[vector]?.length !== analysis.points) {
        problems.push(`${where} lacks ${analysis.points} values of '${vector}'`);
      }
    }
  });
  return problems;
}

function realSignal(vector: string, values: number[], keep: boolean): RealSignal {
  return {
    vector,
    unit: unitOfVector(vector),
    values: keep ? values : [],
    min: Math.min(...values),
    max: Math.max(...values),
    final: values[values.length - 1],
  };
}

function acSignal(vector: string, series: ToolAnalysis['complex_vectors'][string], frequencies: number[], keep: boolean): AcSignal {
  const peak = indexOfMax(series.magnitude);
  return {
    vector,
    unit: unitOfVector(vector),
    magnitude: keep ? series.magnitude : [],
    magnitude_db: keep ? series.magnitude_db : [],
    phase_deg: keep ? series.phase_deg : [],
    peak_magnitude_db: series.magnitude_db[peak],
    peak_frequency_hz: frequencies[peak],
  };
}

/** The tool's analysis results in the skill's shape. */
export function mapAnalyses(input: RunCircuitSimInput, result: SimulateResult): AnalysisResult[] {
  const keep = input.return_vectors;
  return result.analyses.map((analysis, index) => {
    const scale = analysis.scale?.values ?? [];
    return {
      index,
      type: analysis.type,
      scale_name: analysis.scale?.name ?? null,
      scale_unit: analysis.scale?.unit ?? null,
      points: analysis.points,
      scale: keep ? scale : [],
      signals: analysis.type === 'ac' ? [] : input.vectors.map((vector) => realSignal(vector, analysis.vectors[vector], keep)),
      ac_signals:
        analysis.type === 'ac' ? input.vectors.map((vector) => acSignal(vector, analysis.complex_vectors[vector], scale, keep)) : [],
    };
  });
}

function indexOfMax(values: readonly number[]): number {
  let best = 0;
  values.forEach((value, index) => {
    if (value > values[best]) best = index;
  });
  return best;
}

/** Linear interpolation of y at x between (x0, y0) and (x1, y1). */
function lerp(x0: number, y0: number, x1: number, y1: number, x: number): number {
  return x1 === x0 ? y0 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
}

/** y at x on a monotonic (increasing or decreasing) grid, linearly interpolated; null outside it. */
export function interpolate(xs: readonly number[], ys: readonly number[], x: number): number | null {
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] === x) return ys[i];
    if (i > 0 && (xs[i - 1] - x) * (xs[i] - x) < 0) return lerp(xs[i - 1], ys[i - 1], xs[i], ys[i], x);
  }
  return null;
}

/** Time (interpolated) at which the normalised step y first reaches `level` (a fraction of the step). */
function firstCrossing(time: readonly number[], y: readonly number[], level: number): number | null {
  for (let i = 0; i < y.length; i++) {
    if (y[i] >= level) return i === 0 ? time[0] : lerp(y[i - 1], time[i - 1], y[i], time[i], level);
  }
  return null;
}

interface Measured {
  value: number | null;
  unit: string;
  message: string;
}

const PREFIXES: Record<number, string> = { [-12]: 'p', [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G' };

/** A value with its unit for messages: SI prefixes for s, Hz, V and A (349.634 us), 6 significant digits. */
export function eng(value: number, unit: string): string {
  if (value === 0 || !['s', 'Hz', 'V', 'A'].includes(unit)) return `${Number(value.toPrecision(6))}${unit ? ` ${unit}` : ''}`;
  const exponent = Math.min(9, Math.max(-12, Math.floor(Math.log10(Math.abs(value)) / 3) * 3));
  return `${Number((value / 10 ** exponent).toPrecision(6))} ${PREFIXES[exponent]}${unit}`;
}

function cornerFrequency(m: Extract<Measurement, { kind: 'corner_frequency' }>, analysis: ToolAnalysis, vector: string): Measured {
  const frequencies = analysis.scale?.values ?? [];
  const db = analysis.complex_vectors[vector].magnitude_db;
  const peak = indexOfMax(analysis.complex_vectors[vector].magnitude);
  const target = db[peak] - m.drop_db;
  const step = m.direction === 'above' ? 1 : -1;
  for (let i = peak + step; i >= 0 && i < db.length; i += step) {
    if (db[i] < target) {
      const j = i - step; // the last point still at or above the target
      const t = (db[j] - target) / (db[j] - db[i]);
      const f = Math.exp(Math.log(frequencies[j]) + t * (Math.log(frequencies[i]) - Math.log(frequencies[j])));
      return {
        value: round10(f),
        unit: 'Hz',
        message: `${vector} falls ${m.drop_db} dB below its peak of ${eng(db[peak], 'dB')} (at ${eng(frequencies[peak], 'Hz')}) at ${eng(f, 'Hz')}`,
      };
    }
  }
  const end = m.direction === 'above' ? frequencies[frequencies.length - 1] : frequencies[0];
  return {
    value: null,
    unit: 'Hz',
    message: `${vector} stays within ${m.drop_db} dB of its peak of ${eng(db[peak], 'dB')} from ${eng(frequencies[peak], 'Hz')} ${
      m.direction === 'above' ? 'up' : 'down'
    } to ${eng(end, 'Hz')}: no corner in the sweep`,
  };
}

function responseAt(m: Extract<Measurement, { kind: 'response_at' }>, analysis: ToolAnalysis, vector: string): Measured {
  const frequencies = analysis.scale?.values ?? [];
  const series = analysis.complex_vectors[vector];
  const unit = m.quantity === 'magnitude_db' ? 'dB' : m.quantity === 'phase_deg' ? 'deg' : unitOfVector(vector);
  const logs = frequencies.map(Math.log);
  const value = interpolate(logs, series[m.quantity], Math.log(m.frequency_hz));
  if (value === null) {
    return {
      value: null,
      unit,
      message: `${eng(m.frequency_hz, 'Hz')} is outside the sweep (${eng(frequencies[0], 'Hz')} to ${eng(frequencies[frequencies.length - 1], 'Hz')})`,
    };
  }
  return { value: round10(value), unit, message: `${m.quantity} of ${vector} at ${eng(m.frequency_hz, 'Hz')}: ${eng(value, unit)}` };
}

function valueAt(m: Extract<Measurement, { kind: 'value_at' }>, analysis: ToolAnalysis, vector: string): Measured {
  const scale = analysis.scale?.values ?? [];
  const unit = unitOfVector(vector);
  const scaleUnit = analysis.scale?.unit ?? '';
  const value = interpolate(scale, analysis.vectors[vector], m.at);
  if (value === null) {
    return {
      value: null,
      unit,
      message: `${eng(m.at, scaleUnit)} is outside the ${analysis.scale?.name ?? 'scale'} range (${eng(scale[0], scaleUnit)} to ${eng(scale[scale.length - 1], scaleUnit)})`,
    };
  }
  return {
    value: round10(value),
    unit,
    message: `${vector} at ${analysis.scale?.name ?? 'x'} ${eng(m.at, scaleUnit)}: ${eng(value, unit)}`,
  };
}

/** The vector as a fraction of its step from the first to the last value, or null when there is no step. */
function normalised(values: readonly number[]): { y: number[]; initial: number; final: number } | null {
  const initial = values[0];
  const final = values[values.length - 1];
  if (final === initial) return null;
  return { y: values.map((value) => (value - initial) / (final - initial)), initial, final };
}

function riseTime(m: Extract<Measurement, { kind: 'rise_time' }>, analysis: ToolAnalysis, vector: string): Measured {
  const unit = unitOfVector(vector);
  const time = analysis.scale?.values ?? [];
  const step = normalised(analysis.vectors[vector]);
  if (!step) return { value: null, unit: 's', message: `${vector} does not change over the analysis: no step to time` };
  const low = firstCrossing(time, step.y, m.low_percent / 100);
  const high = firstCrossing(time, step.y, m.high_percent / 100);
  if (low === null || high === null) return { value: null, unit: 's', message: `${vector} does not reach ${m.high_percent} % of its step` };
  return {
    value: round10(high - low),
    unit: 's',
    message: `${vector} goes from ${m.low_percent} % to ${m.high_percent} % of its step (${eng(step.initial, unit)} to ${eng(step.final, unit)}) between ${eng(
      low,
      's',
    )} and ${eng(high, 's')}: ${eng(high - low, 's')}`,
  };
}

function settlingTime(m: Extract<Measurement, { kind: 'settling_time' }>, analysis: ToolAnalysis, vector: string): Measured {
  const unit = unitOfVector(vector);
  const time = analysis.scale?.values ?? [];
  const step = normalised(analysis.vectors[vector]);
  if (!step) return { value: null, unit: 's', message: `${vector} does not change over the analysis: no step to settle` };
  const band = m.band_percent / 100;
  // Error from the final value as a fraction of the step; the last point outside the band ends the search.
  const error = step.y.map((value) => Math.abs(value - 1));
  let last = -1;
  error.forEach((value, index) => {
    if (value > band) last = index;
  });
  // The final value is the last sample, so the response is always inside the band there: one that enters it only
  // at the last sample has not been seen to settle.
  if (last >= error.length - 2) {
    return {
      value: null,
      unit: 's',
      message: `${vector} enters the ±${m.band_percent} % band only at its last sample: it has not settled within the analysis (simulate longer)`,
    };
  }
  // Between the last point outside and the next one, where the error comes down to the band (linear in the vector).
  const settled =
    last < 0 ? time[0] : lerp(step.y[last], time[last], step.y[last + 1], time[last + 1], step.y[last] > 1 ? 1 + band : 1 - band);
  const value = settled - time[0];
  return {
    value: round10(value),
    unit: 's',
    message: `${vector} stays within ±${m.band_percent} % of its step around its final value ${eng(step.final, unit)} from ${eng(
      settled,
      's',
    )}: settling time ${eng(value, 's')}`,
  };
}

/** Compute one measurement on the tool's results (its input was checked by findInputProblems). */
export function measure(input: RunCircuitSimInput, result: SimulateResult, m: Measurement): MeasurementResult {
  const analysis = result.analyses[m.analysis];
  const vector = resolveVector(input.vectors, m.vector) as string;
  let found: Measured;
  switch (m.kind) {
    case 'corner_frequency':
      found = cornerFrequency(m, analysis, vector);
      break;
    case 'response_at':
      found = responseAt(m, analysis, vector);
      break;
    case 'value_at':
      found = valueAt(m, analysis, vector);
      break;
    case 'final_value': {
      const values = analysis.vectors[vector];
      const value = values[values.length - 1];
      found = {
        value: round10(value),
        unit: unitOfVector(vector),
        message: `last value of ${vector}: ${eng(value, unitOfVector(vector))}`,
      };
      break;
    }
    case 'rise_time':
      found = riseTime(m, analysis, vector);
      break;
    case 'settling_time':
      found = settlingTime(m, analysis, vector);
      break;
  }
  return { name: m.name, kind: m.kind, analysis: m.analysis, vector, ...found };
}
