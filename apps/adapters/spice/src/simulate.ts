import { defineTool, diagnosticsOf, inputRejected, Program, ToolFailure } from '../../common/src/index.js';
import { buildDeck, checkNetlist, checkPoints, checkVectors, dataFileName } from './netlist.js';
import { simulateInputSchema, simulateOutputSchema } from './schema.js';
import type { AnalysisResult } from './schema.js';
import { parseWrdata } from './wrdata.js';

const DEFAULT_MAX_POINTS = 10_000;

/** Lines of ngspice output that explain a failed analysis. */
const ERROR_LINE = /\b(error|fatal)\b|aborted|no such (vector|device)|not in the circuit|timestep too small|unknown/i;

/** `spice.simulate`: run a netlist through ngspice in batch mode and return the requested vectors per analysis. */
export function simulateTool(ngspice: Program) {
  return defineTool({
    name: 'simulate',
    title: 'SPICE circuit simulation (ngspice)',
    description:
      'Simulate a SPICE netlist with ngspice in batch mode: operating point, DC sweep, AC (small-signal) and transient ' +
      'analyses. Returns the requested vectors per analysis as numbers (AC: real/imag, magnitude, dB and phase).',
    capability: 'circuit_simulation',
    category: 'computation',
    program: ngspice,
    inputSchema: simulateInputSchema,
    outputSchema: simulateOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context) {
      const includes = input.include_files ?? [];
      const includeNames = new Set<string>();
      for (const file of includes) includeNames.add(await writeInclude(context, file.name, file.content));
      const netlist = checkNetlist(input.netlist, includeNames);
      checkVectors(input.vectors);
      const maxPoints = input.max_points ?? DEFAULT_MAX_POINTS;
      input.analyses.forEach((analysis, index) => checkPoints(analysis, index, maxPoints));

      await context.writeInput('circuit.cir', buildDeck(netlist, input.analyses, input.vectors));
      const run = await context.run(['-b', 'circuit.cir']);
      const output = `${run.stderr}\n${run.stdout}`.split(/\r?\n/).map((line) => line.trim());
      const errors = unique(output.filter((line) => ERROR_LINE.test(line)));
      const warnings = unique(output.flatMap((line) => (/warning:/i.test(line) ? [line.slice(line.search(/warning:/i))] : [])));

      const analyses: AnalysisResult[] = [];
      for (const [index, analysis] of input.analyses.entries()) {
        const text = await context.readResult(dataFileName(index));
        const parsed = text === null ? null : parseWrdata(text, analysis, input.vectors);
        if (!parsed) {
          const reasons = errors.slice(0, 5);
          throw new ToolFailure(
            'PROGRAM_FAILED',
            `ngspice produced no results for analyses[${index}] (${analysis.type})` + (reasons.length ? `: ${reasons.join(' | ')}` : ''),
            diagnosticsOf(run),
          );
        }
        analyses.push(parsed);
      }
      const status = await ngspice.probe();
      return {
        analyses,
        warnings: warnings.slice(0, 50),
        solver_time_seconds: Math.round(run.durationMs) / 1000,
        ngspice_version: status.version,
      };
    },
  });
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}

async function writeInclude(
  context: { writeInput(name: string, contents: string, what?: string): Promise<string> },
  name: string,
  content: string,
) {
  if (name === 'circuit.cir' || /^analysis-\d+\.dat$/.test(name))
    throw inputRejected(`include file name '${name}' is reserved by the adapter`);
  await context.writeInput(name, content, 'include_files name');
  return name.split('/').filter(Boolean).join('/');
}
