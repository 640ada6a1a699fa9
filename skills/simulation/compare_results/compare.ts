import type { Series, SignalComparisonInput, SignalComparisonResult, WorstPoint } from './schema.js';

/** Structural problems of the input that make a comparison meaningless, one message each. */
export function findInputProblems(signals: SignalComparisonInput[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const signal of signals) {
    if (seen.has(signal.name)) problems.push(`signal name '${signal.name}' is used more than once; names must be unique`);
    seen.add(signal.name);
    for (const which of ['reference', 'result'] as const) {
      const problem = seriesProblem(signal[which]);
      if (problem) problems.push(`signal '${signal.name}' ${which}: ${problem}`);
    }
  }
  return problems;
}

function seriesProblem(series: Series): string | null {
  if (series.x.length !== series.y.length) {
    return `x has ${series.x.length} values but y has ${series.y.length}; they must have the same length`;
  }
  for (let i = 1; i < series.x.length; i++) {
    if (!(series.x[i] > series.x[i - 1])) {
      return `x must be strictly increasing, but x[${i}] = ${series.x[i]} follows x[${i - 1}] = ${series.x[i - 1]}`;
    }
  }
  return null;
}

/** Linear interpolation of `series` at `x`; `x` must lie within [x[0], x[last]]. Exact grid hits return the sample. */
export function interpolate(series: Series, x: number): number {
  const xs = series.x;
  let lo = 0;
  let hi = xs.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  if (xs[lo] === x) return series.y[lo];
  if (xs[hi] === x) return series.y[hi];
  const t = (x - xs[lo]) / (xs[hi] - xs[lo]);
  return series.y[lo] + t * (series.y[hi] - series.y[lo]);
}

interface PointError {
  x: number;
  referenceY: number;
  resultY: number;
  absError: number;
  allowed: number;
}

/** How far a point is into its tolerance band: 1 means exactly at the limit; Infinity when nothing is allowed but it differs. */
function toleranceRatio(point: PointError): number {
  if (point.allowed > 0) return point.absError / point.allowed;
  return point.absError === 0 ? 0 : Number.POSITIVE_INFINITY;
}

/** Compare one signal, evaluating the result at each reference x inside the overlapping range. */
export function compareSignal(signal: SignalComparisonInput, absTol: number, relTol: number): SignalComparisonResult {
  const { reference, result } = signal;
  const overlap = overlapRange(reference, result);
  const points: PointError[] = [];
  let outside = 0;
  reference.x.forEach((x, i) => {
    if (overlap === null || x < overlap[0] || x > overlap[1]) {
      outside++;
      return;
    }
    const referenceY = reference.y[i];
    const resultY = interpolate(result, x);
    points.push({
      x,
      referenceY,
      resultY,
      absError: Math.abs(resultY - referenceY),
      allowed: absTol + relTol * Math.abs(referenceY),
    });
  });

  let worst: PointError | null = null;
  let maxAbs: number | null = null;
  let maxRel: number | null = null;
  let sumSquares = 0;
  let outOfTolerance = 0;
  for (const point of points) {
    maxAbs = maxAbs === null ? point.absError : Math.max(maxAbs, point.absError);
    if (point.referenceY !== 0) {
      const rel = point.absError / Math.abs(point.referenceY);
      maxRel = maxRel === null ? rel : Math.max(maxRel, rel);
    }
    sumSquares += point.absError * point.absError;
    if (point.absError > point.allowed) outOfTolerance++;
    if (worst === null || toleranceRatio(point) > toleranceRatio(worst)) worst = point;
  }

  const compared = points.length;
  const base = {
    name: signal.name,
    passed: compared > 0 && outOfTolerance === 0,
    compared_points: compared,
    points_outside_overlap: outside,
    overlap_x_min: overlap ? overlap[0] : null,
    overlap_x_max: overlap ? overlap[1] : null,
    abs_tol: absTol,
    rel_tol: relTol,
    max_abs_error: maxAbs,
    max_rel_error: maxRel,
    rms_error: compared > 0 ? Math.sqrt(sumSquares / compared) : null,
    out_of_tolerance_count: outOfTolerance,
    worst_point: worst ? toWorstPoint(worst) : null,
  };
  return { ...base, message: describeResult(signal, base) };
}

function overlapRange(reference: Series, result: Series): [number, number] | null {
  if (reference.x.length === 0 || result.x.length === 0) return null;
  const lo = Math.max(reference.x[0], result.x[0]);
  const hi = Math.min(reference.x[reference.x.length - 1], result.x[result.x.length - 1]);
  return lo <= hi ? [lo, hi] : null;
}

function toWorstPoint(point: PointError): WorstPoint {
  return {
    x: point.x,
    reference_y: point.referenceY,
    result_y: point.resultY,
    abs_error: point.absError,
    rel_error: point.referenceY !== 0 ? point.absError / Math.abs(point.referenceY) : null,
    allowed_error: point.allowed,
    within_tolerance: point.absError <= point.allowed,
  };
}

/** Numbers in messages: 6 significant digits, no trailing noise. */
export function fmt(value: number): string {
  return String(Number(value.toPrecision(6)));
}

function describeResult(signal: SignalComparisonInput, r: Omit<SignalComparisonResult, 'message'>): string {
  const unit = signal.unit ? ` ${signal.unit}` : '';
  const xUnit = signal.x_unit ? ` ${signal.x_unit}` : '';
  const skipped =
    r.points_outside_overlap > 0 ? `; ${r.points_outside_overlap} reference point(s) outside the result's x range were not compared` : '';
  if (r.compared_points === 0) {
    const ranges = `reference x ${rangeText(signal.reference)}${xUnit}, result x ${rangeText(signal.result)}${xUnit}`;
    return `${signal.name}: FAIL, no reference point lies inside the result's x range (${ranges}); nothing was compared`;
  }
  const rule = `|Δ| <= ${fmt(r.abs_tol)}${unit} + ${fmt(r.rel_tol)}·|ref|`;
  const w = r.worst_point!;
  if (r.passed) {
    return (
      `${signal.name}: PASS, ${r.compared_points} point(s) within ${rule}; ` +
      `max |Δ| ${fmt(r.max_abs_error!)}${unit}, RMS ${fmt(r.rms_error!)}${unit}; ` +
      `closest to the limit at x = ${fmt(w.x)}${xUnit} (|Δ| ${fmt(w.abs_error)}${unit} of ${fmt(w.allowed_error)}${unit} allowed)${skipped}`
    );
  }
  return (
    `${signal.name}: FAIL, ${r.out_of_tolerance_count} of ${r.compared_points} point(s) outside ${rule}; ` +
    `worst at x = ${fmt(w.x)}${xUnit}: result ${fmt(w.result_y)}${unit} vs reference ${fmt(w.reference_y)}${unit} ` +
    `(|Δ| ${fmt(w.abs_error)}${unit}, allowed ${fmt(w.allowed_error)}${unit}); RMS ${fmt(r.rms_error!)}${unit}${skipped}`
  );
}

function rangeText(series: Series): string {
  if (series.x.length === 0) return 'empty';
  return `[${fmt(series.x[0])}, ${fmt(series.x[series.x.length - 1])}]`;
}
