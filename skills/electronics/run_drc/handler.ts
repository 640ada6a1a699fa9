import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { DRC_TOOL, findInputProblems, judge, readToolResult } from './drc.js';
import { RunDrcInput, RunDrcOutput } from './schema.js';

/** Seconds kicad-cli may run (the skill's own budget is 120 s). */
const TOOL_SECONDS = 90;

/** Runs KiCad's design rules check on a board (optionally against its schematic) and judges the findings by a policy. */
export class RunDrcHandler extends SkillBase<typeof RunDrcInput, typeof RunDrcOutput> {
  static readonly inputSchema = RunDrcInput;
  static readonly outputSchema = RunDrcOutput;

  override async validatePreconditions(input: RunDrcInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (!(await this.context.mcp.isAvailable(DRC_TOOL))) {
      problems.unshift(`tool '${DRC_TOOL}' is not available: the kicad adapter is not reachable or kicad-cli is not installed there`);
    }
    return problems;
  }

  async execute(input: RunDrcInput): Promise<RunDrcOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot run DRC: ${problems.join('; ')}`, { problems });
    const params: Record<string, unknown> = { board: input.board, timeout_seconds: TOOL_SECONDS };
    for (const key of ['project', 'custom_rules', 'schematic', 'sheets'] as const) if (input[key] !== undefined) params[key] = input[key];
    const raw = await this.context.mcp.invoke(DRC_TOOL, params, { timeoutMs: (TOOL_SECONDS + 10) * 1000 });
    const result = judge(readToolResult(raw, input.schematic !== undefined), input);
    this.logger.info('ran DRC', {
      kicadVersion: raw.kicad_version,
      passed: result.passed,
      errors: result.error_count,
      warnings: result.warning_count,
      unrouted: result.unrouted_count,
    });
    return result;
  }
}
