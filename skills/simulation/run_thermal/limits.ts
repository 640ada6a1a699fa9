import { z } from '@skill-registry/sdk';
import type { LimitResult, TemperatureLimit } from './schema.js';

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const stats = { min: finite, max: finite, mean: finite };
const extreme = z.object({ value: finite, node: z.number().int(), location: z.array(finite) });

/** The parts of the calculix.run_thermal result this skill reads. */
export const ThermalResult = z.object({
  temperature: z.object(stats),
  hottest_node: extreme,
  coldest_node: extreme,
  sets: z.array(z.object({ name: z.string(), kind: z.enum(['node_set', 'element_set']), node_count: z.number().int().min(0), ...stats })),
  transient: z.boolean(),
  history: z.array(z.object({ time: finite, ...stats })).min(1),
  solver_time: finite.min(0),
  mesh_elements: z.number().int().min(0),
  mesh_nodes: z.number().int().min(0),
  warnings: z.array(z.string()).optional(),
});
export type ThermalResult = z.infer<typeof ThermalResult>;

/** Rounds to 10 significant digits (CalculiX writes temperatures with about 6). */
export function round10(value: number): number {
  return value === 0 ? 0 : Number(value.toPrecision(10));
}

/** Problems with the limits that need no analysis to find. */
export function findLimitProblems(limits: readonly TemperatureLimit[]): string[] {
  const problems: string[] = [];
  limits.forEach((limit, index) => {
    const where = `limits[${index}]${limit.set ? ` (${limit.set})` : ''}`;
    if (limit.max_allowed === undefined && limit.min_allowed === undefined)
      problems.push(`${where} gives neither max_allowed nor min_allowed`);
    if (limit.max_allowed !== undefined && limit.min_allowed !== undefined && limit.min_allowed > limit.max_allowed) {
      problems.push(`${where}: min_allowed ${limit.min_allowed} is above max_allowed ${limit.max_allowed}`);
    }
  });
  return problems;
}

/** The highest temperature over every written increment and the first time it occurs. */
export function peakOf(history: ThermalResult['history']): { temperature: number; time: number; lowest: number } {
  let peak = history[0];
  let lowest = history[0].min;
  for (const entry of history) {
    if (entry.max > peak.max) peak = entry;
    lowest = Math.min(lowest, entry.min);
  }
  return { temperature: peak.max, time: peak.time, lowest };
}

/** Check every limit (temperatures in `unit`): a set at the last increment, the whole model over every written increment. */
export function checkLimits(limits: readonly TemperatureLimit[], unit: string, result: ThermalResult): LimitResult[] {
  const peak = peakOf(result.history);
  return limits.map((limit) => {
    const label = limit.set ?? 'model';
    const base = { set: limit.set ?? null, max_allowed: limit.max_allowed ?? null, min_allowed: limit.min_allowed ?? null };
    let kind: LimitResult['kind'];
    let max: number;
    let min: number;
    if (limit.set === undefined) {
      kind = 'model';
      max = peak.temperature;
      min = peak.lowest;
    } else {
      const wanted = limit.set.toUpperCase();
      const matches = result.sets.filter((set) => set.name.toUpperCase() === wanted);
      // A node set and an element set may share a name; the node set is the one the limit names first.
      const set = matches.find((candidate) => candidate.kind === 'node_set') ?? matches[0];
      if (!set) {
        const known = result.sets.map((candidate) => candidate.name).join(', ') || 'none';
        return {
          ...base,
          kind: null,
          max_temperature: null,
          min_temperature: null,
          margin: null,
          status: 'set_not_found' as const,
          passed: false,
          message: `${label}: SET NOT FOUND, the results have no node or element set '${limit.set}' (sets: ${known})`,
        };
      }
      kind = set.kind;
      max = set.max;
      min = set.min;
    }
    const margins: number[] = [];
    const parts: string[] = [];
    const violations: string[] = [];
    if (limit.max_allowed !== undefined) {
      margins.push(limit.max_allowed - max);
      parts.push(`max ${max} ${unit} (allowed <= ${limit.max_allowed})`);
      if (max > limit.max_allowed)
        violations.push(
          `max ${max} ${unit} exceeds the allowed ${limit.max_allowed} ${unit} by ${round10(max - limit.max_allowed)} ${unit}`,
        );
    }
    if (limit.min_allowed !== undefined) {
      margins.push(min - limit.min_allowed);
      parts.push(`min ${min} ${unit} (allowed >= ${limit.min_allowed})`);
      if (min < limit.min_allowed)
        violations.push(
          `min ${min} ${unit} is below the allowed ${limit.min_allowed} ${unit} by ${round10(limit.min_allowed - min)} ${unit}`,
        );
    }
    const margin = round10(Math.min(...margins));
    const passed = violations.length === 0;
    const scope = limit.set === undefined ? (result.transient ? ' over all increments' : '') : '';
    return {
      ...base,
      kind,
      max_temperature: max,
      min_temperature: min,
      margin,
      status: passed ? ('pass' as const) : ('fail' as const),
      passed,
      message: passed
        ? `${label}: PASS${scope}, ${parts.join(', ')}, margin ${margin} ${unit}`
        : `${label}: FAIL${scope}, ${violations.join('; ')}`,
    };
  });
}
