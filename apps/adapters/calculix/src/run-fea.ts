import { defineTool, inputRejected, ToolFailure } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { meshSummary, runCalculix } from './ccx-run.js';
import { lastBlock, nodesOfElements, vonMises } from './frd.js';
import type { FrdFile, FrdResultBlock } from './frd.js';
import { runFeaInputSchema, runFeaOutputSchema } from './schema.js';
import type { RunFeaOutput } from './schema.js';

/** Procedures whose results are a static stress state. */
const STRESS_PROCEDURES = new Set(['STATIC', 'COUPLED TEMPERATURE-DISPLACEMENT', 'UNCOUPLED TEMPERATURE-DISPLACEMENT', 'VISCO']);

const UNITS = {
  'N-mm': { stressScale: 1, stressUnit: 'MPa', lengthUnit: 'mm' },
  'N-m': { stressScale: 1e-6, stressUnit: 'MPa', lengthUnit: 'm' },
  other: { stressScale: 1, stressUnit: 'model units', lengthUnit: 'model units' },
} as const;

/** `calculix.run_fea`: static stress analysis with ccx; max von Mises per element set and displacement extremes. */
export function runFeaTool(ccx: Program) {
  return defineTool({
    name: 'run_fea',
    title: 'Static stress analysis (CalculiX)',
    description:
      'Run a CalculiX static stress deck (.inp contents) with ccx and summarise the results: largest nodal von Mises stress ' +
      'per element set (MPa for N-mm models), displacement extremes, solver time, element and node counts.',
    capability: 'stress_analysis',
    category: 'computation',
    program: ccx,
    inputSchema: runFeaInputSchema,
    outputSchema: runFeaOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<RunFeaOutput> {
      const units = UNITS[input.unit_system ?? 'N-mm'];
      const run = await runCalculix(ccx, context, input, {
        outputRequests: [
          { keyword: 'NODE FILE', variable: 'U' },
          { keyword: 'EL FILE', variable: 'S' },
        ],
        checkSteps(deck) {
          if (!deck.steps.some((step) => STRESS_PROCEDURES.has(step.procedure))) {
            const found = deck.steps.map((step) => `*${step.procedure}`).join(', ') || 'no step';
            throw inputRejected(`run_fea needs a *STATIC step (found ${found}); use run_thermal for *HEAT TRANSFER decks`);
          }
          for (const region of input.regions ?? []) {
            if (!deck.elementSets.has(region.toUpperCase())) {
              throw inputRejected(
                `region '${region}' is not an element set of the deck (sets: ${[...deck.elementSets.keys()].join(', ') || 'none'})`,
              );
            }
          }
        },
      });
      const stress = lastBlock(run.frd, 'STRESS');
      const displacement = lastBlock(run.frd, 'DISP');
      if (!stress || !displacement) throw new ToolFailure('PROGRAM_FAILED', 'CalculiX wrote no stress or displacement results');

      const vm = new Map<number, number>();
      for (const [node, components] of stress.values) vm.set(node, vonMises(components) * units.stressScale);
      const overall = extremeOf(run.frd, vm.keys(), vm, 'max');
      if (!overall) throw new ToolFailure('PROGRAM_FAILED', 'CalculiX wrote an empty stress block');

      const regionNames = input.regions?.map((name) => name.toUpperCase()) ?? [...run.deck.elementSets.keys()];
      const regions = regionNames.flatMap((name) => {
        const elements = run.deck.elementSets.get(name) ?? new Set<number>();
        const peak = extremeOf(run.frd, nodesOfElements(run.frd, elements), vm, 'max');
        return peak ? [{ name, max_von_mises: peak.value, node: peak.node, location: peak.location, element_count: elements.size }] : [];
      });
      if (regions.length === 0)
        regions.push({
          name: 'ALL',
          max_von_mises: overall.value,
          node: overall.node,
          location: overall.location,
          element_count: run.frd.elements.size,
        });

      return {
        max_von_mises: Object.fromEntries(regions.map((region) => [region.name, region.max_von_mises])),
        regions,
        max_von_mises_overall: overall,
        displacement: displacementSummary(run.frd, displacement),
        stress_unit: units.stressUnit,
        length_unit: units.lengthUnit,
        ...meshSummary(run),
        solver_time: run.solverTimeSeconds,
        result_time: stress.time,
        warnings: run.warnings,
        calculix_version: run.version,
      };
    },
  });
}

function displacementSummary(frd: FrdFile, block: FrdResultBlock): RunFeaOutput['displacement'] {
  const magnitude = new Map<number, number>();
  const axes = [0, 1, 2].map(() => ({ min: Infinity, max: -Infinity }));
  for (const [node, [ux, uy, uz]] of block.values) {
    magnitude.set(node, Math.hypot(ux, uy, uz));
    [ux, uy, uz].forEach((value, axis) => {
      axes[axis].min = Math.min(axes[axis].min, value);
      axes[axis].max = Math.max(axes[axis].max, value);
    });
  }
  const max = extremeOf(frd, magnitude.keys(), magnitude, 'max');
  if (!max) throw new ToolFailure('PROGRAM_FAILED', 'CalculiX wrote an empty displacement block');
  return { max_magnitude: max, x: axes[0], y: axes[1], z: axes[2] };
}

/** Largest (or smallest) value among `nodes`, with the node and its coordinates. */
export function extremeOf(frd: FrdFile, nodes: Iterable<number>, values: ReadonlyMap<number, number>, kind: 'max' | 'min') {
  let best: { value: number; node: number } | null = null;
  for (const node of nodes) {
    const value = values.get(node);
    if (value === undefined) continue;
    if (!best || (kind === 'max' ? value > best.value : value < best.value)) best = { value, node };
  }
  if (!best) return null;
  return { value: best.value, node: best.node, location: [...(frd.nodes.get(best.node) ?? [NaN, NaN, NaN])] };
}
