import { defineTool, inputRejected, ToolFailure } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { meshSummary, runCalculix } from './ccx-run.js';
import { nodesOfElements } from './frd.js';
import type { FrdResultBlock } from './frd.js';
import { extremeOf } from './run-fea.js';
import { runThermalInputSchema, runThermalOutputSchema } from './schema.js';
import type { RunThermalOutput } from './schema.js';

const MAX_HISTORY = 1000;

/** `calculix.run_thermal`: steady-state or transient heat transfer with ccx; temperature field summary. */
export function runThermalTool(ccx: Program) {
  return defineTool({
    name: 'run_thermal',
    title: 'Heat transfer analysis (CalculiX)',
    description:
      'Run a CalculiX *HEAT TRANSFER deck (.inp contents; steady state or transient) with ccx and summarise the temperature ' +
      'field: min/max/mean, hottest and coldest node, per node set and element set, and the history of a transient run.',
    capability: 'thermal_analysis',
    category: 'computation',
    program: ccx,
    inputSchema: runThermalInputSchema,
    outputSchema: runThermalOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<RunThermalOutput> {
      let transient = false;
      const run = await runCalculix(ccx, context, input, {
        outputRequests: [{ keyword: 'NODE FILE', variable: 'NT' }],
        checkSteps(deck) {
          const heat = deck.steps.filter((step) => step.procedure === 'HEAT TRANSFER');
          if (heat.length === 0) {
            const found = deck.steps.map((step) => `*${step.procedure}`).join(', ') || 'no step';
            throw inputRejected(`run_thermal needs a *HEAT TRANSFER step (found ${found}); use run_fea for stress decks`);
          }
          transient = heat.some((step) => !step.parameters.has('STEADY STATE'));
        },
      });
      const blocks = run.frd.blocks.filter((block) => block.name === 'NDTEMP');
      const last = blocks.at(-1);
      if (!last || last.values.size === 0) throw new ToolFailure('PROGRAM_FAILED', 'CalculiX wrote no temperature results (NDTEMP)');
      const temperatures = new Map<number, number>();
      for (const [node, [value]] of last.values) temperatures.set(node, value);

      const sets: RunThermalOutput['sets'] = [];
      for (const [name, nodes] of run.deck.nodeSets) sets.push({ name, kind: 'node_set', ...stats(temperatures, nodes) });
      for (const [name, elements] of run.deck.elementSets) {
        sets.push({ name, kind: 'element_set', ...stats(temperatures, nodesOfElements(run.frd, elements)) });
      }
      const hottest = extremeOf(run.frd, temperatures.keys(), temperatures, 'max');
      const coldest = extremeOf(run.frd, temperatures.keys(), temperatures, 'min');
      if (!hottest || !coldest) throw new ToolFailure('PROGRAM_FAILED', 'CalculiX wrote an empty temperature block');
      const overall = stats(temperatures, temperatures.keys());

      return {
        temperature: { min: overall.min, max: overall.max, mean: overall.mean },
        hottest_node: hottest,
        coldest_node: coldest,
        max_temperature_by_set: Object.fromEntries(
          sets.filter((set) => set.kind === 'node_set' && set.node_count > 0).map((set) => [set.name, set.max]),
        ),
        sets: sets.filter((set) => set.node_count > 0),
        transient,
        history: thin(blocks).map((block) => ({ time: block.time, ...minMaxMean(block) })),
        temperature_unit: 'as in the deck',
        ...meshSummary(run),
        solver_time: run.solverTimeSeconds,
        result_time: last.time,
        warnings: run.warnings,
        calculix_version: run.version,
      };
    },
  });
}

function stats(temperatures: ReadonlyMap<number, number>, nodes: Iterable<number>) {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (const node of nodes) {
    const value = temperatures.get(node);
    if (value === undefined) continue;
    min = Math.min(min, value);
    max = Math.max(max, value);
    sum += value;
    count += 1;
  }
  return count === 0 ? { node_count: 0, min: 0, max: 0, mean: 0 } : { node_count: count, min, max, mean: sum / count };
}

function minMaxMean(block: FrdResultBlock) {
  const { min, max, mean } = stats(new Map([...block.values].map(([node, [value]]) => [node, value])), block.values.keys());
  return { min, max, mean };
}

/** At most MAX_HISTORY blocks, evenly spaced, always keeping the last. */
function thin(blocks: FrdResultBlock[]): FrdResultBlock[] {
  if (blocks.length <= MAX_HISTORY) return blocks;
  const step = blocks.length / MAX_HISTORY;
  const picked = Array.from({ length: MAX_HISTORY - 1 }, (_, i) => blocks[Math.floor(i * step)]);
  return [...picked, blocks[blocks.length - 1]];
}
