import { SkillBase, SkillExecutionError, SkillPreconditionError } from '@skill-registry/sdk';
import { checkLimits, findLimitProblems, peakOf, ThermalResult } from './limits.js';
import { RunThermalInput, RunThermalOutput } from './schema.js';
import { chooseLimits, findWorkProductProblem, readModel, writeResult, type AnalysedModel } from './work-products.js';

export const THERMAL_TOOL = 'calculix.run_thermal';
/** Time the skill gives one CalculiX run (the skill's own budget is 300 s). */
const TOOL_TIMEOUT_MS = 280_000;
const SOLVER_TIMEOUT_SECONDS = 270;

/**
 * Runs a CalculiX heat transfer analysis (steady state or transient) and summarises the temperature field:
 * extremes, per-set temperatures, the transient history, and pass/fail against temperature limits per set.
 * Given a mesh work product, it analyses that on the caller's branch, takes its max_temperature constraints when
 * no limits are given, and writes the result back as a simulation_result.
 */
export class RunThermalHandler extends SkillBase<typeof RunThermalInput, typeof RunThermalOutput> {
  static readonly inputSchema = RunThermalInput;
  static readonly outputSchema = RunThermalOutput;

  override async validatePreconditions(input: RunThermalInput): Promise<string[]> {
    const problems: string[] = [];
    const missing = input.work_product_id === undefined ? null : await findWorkProductProblem(this.context, input.work_product_id);
    if (missing !== null) problems.push(missing);
    else {
      const choice = await chooseLimits(this.context, input);
      problems.push(...('problem' in choice ? [choice.problem] : findLimitProblems(choice.limits)));
    }
    problems.push(...findDeckProblems(input));
    if (!(await this.context.mcp.isAvailable(THERMAL_TOOL))) problems.push(`CalculiX thermal tool (${THERMAL_TOOL}) is not available`);
    return problems;
  }

  async execute(input: RunThermalInput): Promise<RunThermalOutput> {
    const choice = await chooseLimits(this.context, input);
    if ('problem' in choice) throw new SkillPreconditionError('run_thermal', [choice.problem]);
    const problems = findLimitProblems(choice.limits);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot check the limits: ${problems.join('; ')}`, { problems });
    const model: AnalysedModel | null = input.work_product_id === undefined ? null : await readModel(this.context, input.work_product_id);
    const includeFiles = [...(model ? [{ name: input.mesh_include_name, content: model.inp }] : []), ...(input.include_files ?? [])];
    const raw = await this.context.mcp.invoke(
      THERMAL_TOOL,
      {
        deck: input.deck_inp,
        ...(includeFiles.length > 0 ? { include_files: includeFiles } : {}),
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
    const limits = checkLimits(choice.limits, input.temperature_unit, result);
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
    const analysis = {
      passed,
      limits_source: choice.source,
      source_work_product_id: input.work_product_id ?? null,
      source_revision: model?.revision ?? null,
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
      mesh_elements: result.mesh_elements,
      mesh_nodes: result.mesh_nodes,
      warnings: result.warnings ?? [],
    };
    // The solver time is left out of the stored result: it differs run to run, and an identical result is no new revision.
    const written =
      model && input.work_product_id !== undefined
        ? await writeResult(this.context, input.work_product_id, input.load_case ?? null, model, analysis)
        : null;
    return {
      ...analysis,
      result_work_product_id: written?.id ?? null,
      result_revision: written?.revision ?? null,
      solver_time_seconds: result.solver_time,
    };
  }
}

/** With a work product, the deck must read its mesh under a name no other include file takes. */
function findDeckProblems(input: RunThermalInput): string[] {
  if (input.work_product_id === undefined) return [];
  const problems: string[] = [];
  const name = input.mesh_include_name;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (!new RegExp(`^\\s*\\*INCLUDE\\s*,\\s*INPUT\\s*=\\s*"?${escaped}"?\\s*$`, 'im').test(input.deck_inp)) {
    problems.push(`deck_inp does not include the work product's mesh: add the line *INCLUDE, INPUT=${name}`);
  }
  if (input.include_files?.some((file) => file.name === name)) {
    problems.push(`include_files has a file named ${name}, the name the work product's mesh is written under (mesh_include_name)`);
  }
  return problems;
}
