import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { checkLimits, findLimitProblems, peakOf, ThermalResult } from './limits.js';
import { RunThermalInput, RunThermalOutput } from './schema.js';

export const THERMAL_TOOL = 'calculix.run_thermal';
/** Time the skill gives one CalculiX run (the skill's own budget is 300 s). */
const TOOL_TIMEOUT_MS = 280_000;
const SOLVER_TIMEOUT_SECONDS = 270;

/**
 * Runs a CalculiX heat transfer analysis (steady state or transient) and summarises the temperature field:
 * extremes, per-set temperatures, the transient history, and pass/fail against temperature limits per set.
 */
export class RunThermalHandler extends SkillBase<typeof RunThermalInput, typeof RunThermalOutput> {
  static readonly inputSchema = RunThermalInput;
  static readonly outputSchema = RunThermalOutput;

  override async validatePreconditions(input: RunThermalInput): Promise<string[]> {
    const problems = findLimitProblems(input.limits);
    if (!(await this.context.mcp.isAvailable(THERMAL_TOOL))) problems.push(`CalculiX thermal tool (${THERMAL_TOOL}) is not available`);
    return problems;
  }

  async execute(input: RunThermalInput): Promise<RunThermalOutput> {
    const problems = findLimitProblems(input.limits);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot check the limits: ${problems.join('; ')}`, { problems });
    const raw = await this.context.mcp.invoke(
      THERMAL_TOOL,
      {
        deck: input.deck_inp,
        ...(input.include_files ? { include_files: input.include_files } : {}),
        timeout_seconds: SOLVER_TIMEOUT_SECONDS,
      },
      { timeoutMs: TOOL_TIMEOUT_MS, signal: this.context.signal },
    );
    const parsed = ThermalResult.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
      throw new SkillExecutionError(`${THERMAL_TOOL} returned a result this skill cannot read: ${issues.join('; ')}`, { problems: issues });
    }
    const result = parsed.data;
    const limits = checkLimits(input, result);
    const peak = peakOf(result.history);
    const passed = limits.every((limit) => limit.passed);
    this.logger.info('thermal analysis finished', {
      transient: result.transient,
      max_temperature: result.temperature.max,
      limits: limits.length,
      failed: limits.filter((limit) => !limit.passed).length,
    });
    const node = (extreme: ThermalResult['hottest_node']) => ({
      node: extreme.node,
      temperature: extreme.value,
      location: extreme.location,
    });
    return {
      passed,
      transient: result.transient,
      temperature_unit: input.temperature_unit,
      max_temperature: result.temperature.max,
      min_temperature: result.temperature.min,
      mean_temperature: result.temperature.mean,
      peak_temperature: peak.temperature,
      peak_time: peak.time,
      hottest_node: node(result.hottest_node),
      coldest_node: node(result.coldest_node),
      sets: result.sets,
      limits,
      history: result.history,
      solver_time_seconds: result.solver_time,
      mesh_elements: result.mesh_elements,
      mesh_nodes: result.mesh_nodes,
      warnings: result.warnings ?? [],
    };
  }
}
