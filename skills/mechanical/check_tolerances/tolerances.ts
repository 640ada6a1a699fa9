import { z } from '@skill-registry/sdk';
import type { CheckResult, CheckTolerancesInput, ToleranceCheck } from './schema.js';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const vector = z.array(finite).length(3);

/** The parts of the gmsh.measure result this skill reads. */
export const MeasureResult = z.object({
  bounding_box: z.object({ min: vector, max: vector, size: vector }),
  volume: finite.nullable(),
  surface_area: finite.nullable(),
  volumes: z.record(z.string(), finite),
  surface_areas: z.record(z.string(), finite),
  curve_lengths: z.record(z.string(), finite),
  distances: z.array(z.object({ from: z.string(), to: z.string(), kind: z.string(), distance: finite.min(0), delta: vector })),
  kernel: z.enum(['opencascade', 'built-in']),
  warnings: z.array(z.string()).optional(),
});
export type MeasureResult = z.infer<typeof MeasureResult>;

const AXES = { x: 0, y: 1, z: 2 } as const;

/** Rounds to 10 significant digits: removes the 1e-15 noise of CAD arithmetic, far below any manufacturing tolerance. */
export function round10(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(10));
}

/** Problems with the input that need no measurement to find. */
export function findInputProblems(input: CheckTolerancesInput): string[] {
  const problems: string[] = [];
  if (input.geo === undefined && input.step === undefined)
    problems.push('give the geometry as geo (a .geo script) or step (STEP contents)');
  const seen = new Set<string>();
  for (const check of input.checks) {
    if (seen.has(check.name)) problems.push(`check name '${check.name}' is used more than once; names must be unique`);
    seen.add(check.name);
  }
  return problems;
}

/** The distinct distances to ask gmsh.measure for, in first-use order. */
export function distanceRequests(checks: readonly ToleranceCheck[]): { from: string; to: string }[] {
  const requests = new Map<string, { from: string; to: string }>();
  for (const check of checks) {
    if (check.kind === 'distance') requests.set(JSON.stringify([check.from, check.to]), { from: check.from, to: check.to });
  }
  return [...requests.values()];
}

/** A named entry of one of the result maps: exact name first, then ignoring case (as the gmsh adapter finds groups). */
function lookup(map: Record<string, number>, name: string): number | undefined {
  if (Object.hasOwn(map, name)) return map[name];
  const key = Object.keys(map).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : map[key];
}

function listOf(map: Record<string, number>): string {
  return Object.keys(map).join(', ') || 'none';
}

interface Measurement {
  feature: string;
  value: number | null;
  /** Why value is null. */
  reason?: string;
}

function measure(
  check: ToleranceCheck,
  result: MeasureResult,
  distances: ReadonlyMap<string, MeasureResult['distances'][number]>,
): Measurement {
  const occ = result.kernel === 'opencascade';
  const needsOcc = 'the model uses the built-in kernel; volumes, areas and lengths need SetFactory("OpenCASCADE")';
  switch (check.kind) {
    case 'bounding_box':
      return { feature: `bounding box size along ${check.axis}`, value: result.bounding_box.size[AXES[check.axis]] };
    case 'distance': {
      const found = distances.get(JSON.stringify([check.from, check.to]));
      const between = found?.kind === 'point_to_point' ? 'between points' : 'between centroids';
      const feature = check.axis
        ? `distance ${check.from} -> ${check.to} along ${check.axis} (${between})`
        : `distance ${check.from} -> ${check.to} (${between})`;
      if (!found) return { feature, value: null, reason: 'gmsh.measure returned no such distance' };
      return { feature, value: check.axis ? Math.abs(found.delta[AXES[check.axis]]) : found.distance };
    }
    case 'volume': {
      if (check.group === undefined) {
        return { feature: 'total volume', value: result.volume, reason: result.volume === null ? needsOcc : undefined };
      }
      const feature = `volume of ${check.group}`;
      if (!occ) return { feature, value: null, reason: needsOcc };
      const value = lookup(result.volumes, check.group);
      return value === undefined
        ? {
            feature,
            value: null,
            reason: `'${check.group}' is not a Physical Volume of the model (physical volumes: ${listOf(result.volumes)})`,
          }
        : { feature, value };
    }
    case 'area': {
      if (check.group === undefined) {
        return { feature: 'total surface area', value: result.surface_area, reason: result.surface_area === null ? needsOcc : undefined };
      }
      const feature = `area of ${check.group}`;
      if (!occ) return { feature, value: null, reason: needsOcc };
      const value = lookup(result.surface_areas, check.group);
      return value === undefined
        ? {
            feature,
            value: null,
            reason: `'${check.group}' is not a Physical Surface of the model (physical surfaces: ${listOf(result.surface_areas)})`,
          }
        : { feature, value };
    }
    case 'length': {
      const feature = `length of ${check.group}`;
      if (!occ) return { feature, value: null, reason: needsOcc };
      const value = lookup(result.curve_lengths, check.group);
      return value === undefined
        ? {
            feature,
            value: null,
            reason: `'${check.group}' is not a Physical Curve of the model (physical curves: ${listOf(result.curve_lengths)})`,
          }
        : { feature, value };
    }
  }
}

function unitOf(kind: ToleranceCheck['kind'], lengthUnit: string): string {
  if (kind === 'volume') return `${lengthUnit}^3`;
  if (kind === 'area') return `${lengthUnit}^2`;
  return lengthUnit;
}

/** Evaluate every check against one gmsh.measure result. */
export function evaluateChecks(input: CheckTolerancesInput, result: MeasureResult): CheckResult[] {
  const distances = new Map(result.distances.map((entry) => [JSON.stringify([entry.from, entry.to]), entry]));
  return input.checks.map((check) => {
    const unit = unitOf(check.kind, input.length_unit);
    const plus = check.tolerance_plus;
    const minus = check.tolerance_minus ?? check.tolerance_plus;
    const lower = round10(check.nominal - minus);
    const upper = round10(check.nominal + plus);
    const { feature, value, reason } = measure(check, result, distances);
    const spec = `nominal ${check.nominal} ${unit} ${plus === minus ? `±${plus}` : `+${plus}/-${minus}`}`;
    const base = {
      name: check.name,
      kind: check.kind,
      feature,
      unit,
      nominal: check.nominal,
      tolerance_plus: plus,
      tolerance_minus: minus,
    };
    if (value === null) {
      return {
        ...base,
        lower_limit: lower,
        upper_limit: upper,
        measured: null,
        deviation: null,
        status: 'not_measured' as const,
        passed: false,
        message: `${check.name}: NOT MEASURED, ${feature}: ${reason ?? 'no value'}`,
      };
    }
    const measured = round10(value);
    const deviation = round10(measured - check.nominal);
    // Judged on the rounded deviation, so a value exactly on a limit passes despite floating-point noise.
    const passed = deviation <= plus && deviation >= -minus;
    const shown = `${deviation > 0 ? '+' : ''}${deviation}`;
    const limit = deviation > 0 ? `above the upper limit ${upper} ${unit}` : `below the lower limit ${lower} ${unit}`;
    const message = passed
      ? `${check.name}: PASS, ${feature} = ${measured} ${unit} (${spec}, deviation ${shown} ${unit})`
      : `${check.name}: FAIL, ${feature} = ${measured} ${unit}, ${limit} (${spec}, deviation ${shown} ${unit})`;
    return {
      ...base,
      lower_limit: lower,
      upper_limit: upper,
      measured,
      deviation,
      status: passed ? ('pass' as const) : ('fail' as const),
      passed,
      message,
    };
  });
}
