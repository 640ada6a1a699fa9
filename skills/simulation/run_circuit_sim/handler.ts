import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { findInputProblems, findResultProblems, mapAnalyses, measure, SimulateResult } from './measure.js';
import { RunCircuitSimInput, RunCircuitSimOutput } from './schema.js';

export const SPICE_TOOL = 'spice.simulate';
const TOOL_TIMEOUT_MS = 110_000;
const NGSPICE_TIMEOUT_SECONDS = 100;

/**
 * Simulates a SPICE netlist with ngspice (operating point, DC sweep, AC, transient) and returns the requested
 * vectors, with derived measurements: corner frequency, response at a frequency, value at a time, final value,
 * rise time and settling time.
 */
export class RunCircuitSimHandler extends SkillBase<typeof RunCircuitSimInput, typeof RunCircuitSimOutput> {
  static readonly inputSchema = RunCircuitSimInput;
  static readonly outputSchema = RunCircuitSimOutput;

  override async validatePreconditions(input: RunCircuitSimInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (!(await this.context.mcp.isAvailable(SPICE_TOOL))) problems.push(`SPICE simulation tool (${SPICE_TOOL}) is not available`);
    return problems;
  }

  async execute(input: RunCircuitSimInput): Promise<RunCircuitSimOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot simulate: ${problems.join('; ')}`, { problems });
    const raw = await this.context.mcp.invoke(
      SPICE_TOOL,
      {
        netlist: input.netlist,
        analyses: input.analyses,
        vectors: input.vectors,
        ...(input.include_files ? { include_files: input.include_files } : {}),
        ...(input.max_points !== undefined ? { max_points: input.max_points } : {}),
        timeout_seconds: NGSPICE_TIMEOUT_SECONDS,
      },
      { timeoutMs: TOOL_TIMEOUT_MS, signal: this.context.signal },
    );
    const parsed = SimulateResult.safeParse(raw);
    const shapeProblems = parsed.success
      ? findResultProblems(input, parsed.data)
      : parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
    if (!parsed.success || shapeProblems.length > 0) {
      throw new SkillExecutionError(`${SPICE_TOOL} returned a result this skill cannot read: ${shapeProblems.join('; ')}`, {
        problems: shapeProblems,
      });
    }
    const result = parsed.data;
    const measurements = input.measurements.map((measurement) => measure(input, result, measurement));
    this.logger.info('circuit simulated', {
      analyses: result.analyses.length,
      measurements: measurements.length,
      not_found: measurements.filter((m) => m.value === null).length,
    });
    return { analyses: mapAnalyses(input, result), measurements, warnings: result.warnings ?? [] };
  }
}
