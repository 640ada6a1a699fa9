import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { CheckTolerancesInput, CheckTolerancesOutput } from './schema.js';
import { distanceRequests, evaluateChecks, findInputProblems, MeasureResult, round10 } from './tolerances.js';

export const MEASURE_TOOL = 'gmsh.measure';
const TOOL_TIMEOUT_MS = 100_000;
const GMSH_TIMEOUT_SECONDS = 90;

/**
 * Checks measured features of a part (bounding box extents, distances between named points, volumes, areas, curve
 * lengths) against nominal values with ± tolerances, measuring the geometry with gmsh (the seed names freecad.measure).
 */
export class CheckTolerancesHandler extends SkillBase<typeof CheckTolerancesInput, typeof CheckTolerancesOutput> {
  static readonly inputSchema = CheckTolerancesInput;
  static readonly outputSchema = CheckTolerancesOutput;

  override async validatePreconditions(input: CheckTolerancesInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (!(await this.context.mcp.isAvailable(MEASURE_TOOL))) problems.push(`geometry measurement tool (${MEASURE_TOOL}) is not available`);
    return problems;
  }

  async execute(input: CheckTolerancesInput): Promise<CheckTolerancesOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot check tolerances: ${problems.join('; ')}`, { problems });
    const distances = distanceRequests(input.checks);
    const raw = await this.context.mcp.invoke(
      MEASURE_TOOL,
      {
        ...(input.geo !== undefined ? { geo: input.geo } : {}),
        ...(input.step !== undefined ? { step: input.step } : {}),
        ...(distances.length > 0 ? { distances } : {}),
        timeout_seconds: GMSH_TIMEOUT_SECONDS,
      },
      { timeoutMs: TOOL_TIMEOUT_MS, signal: this.context.signal },
    );
    const parsed = MeasureResult.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
      throw new SkillExecutionError(`${MEASURE_TOOL} returned a result this skill cannot read: ${issues.join('; ')}`, { problems: issues });
    }
    const result = parsed.data;
    if (result.distances.length !== distances.length) {
      throw new SkillExecutionError(
        `${MEASURE_TOOL} returned ${result.distances.length} distance(s) for the ${distances.length} asked for`,
      );
    }

    const checks = evaluateChecks(input, result);
    const count = (status: string) => checks.filter((check) => check.status === status).length;
    const failed = checks.filter((check) => !check.passed).map((check) => check.name);
    this.logger.info('checked tolerances', { checks: checks.length, failed: failed.length, kernel: result.kernel });
    const warnings = [...(result.warnings ?? [])];
    if (count('not_measured') > 0) warnings.push(`${count('not_measured')} check(s) could not be measured; see their messages`);
    return {
      passed: failed.length === 0,
      checks_passed: count('pass'),
      checks_failed: count('fail'),
      checks_not_measured: count('not_measured'),
      failed_checks: failed,
      checks,
      length_unit: input.length_unit,
      bounding_box: {
        min: result.bounding_box.min.map(round10),
        max: result.bounding_box.max.map(round10),
        size: result.bounding_box.size.map(round10),
      },
      volume: result.volume === null ? null : round10(result.volume),
      kernel: result.kernel,
      warnings,
    };
  }
}
