import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { ERC_TOOL, findInputProblems, judge, readToolResult } from './erc.js';
import { RunErcInput, RunErcOutput } from './schema.js';

/** Seconds kicad-cli may run (the skill's own budget is 120 s). */
const TOOL_SECONDS = 90;

/** Runs KiCad's electrical rules check on a schematic and judges the violations by the caller's policy. */
export class RunErcHandler extends SkillBase<typeof RunErcInput, typeof RunErcOutput> {
  static readonly inputSchema = RunErcInput;
  static readonly outputSchema = RunErcOutput;

  override async validatePreconditions(input: RunErcInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (!(await this.context.mcp.isAvailable(ERC_TOOL))) {
      problems.unshift(`tool '${ERC_TOOL}' is not available: the kicad adapter is not reachable or kicad-cli is not installed there`);
    }
    return problems;
  }

  async execute(input: RunErcInput): Promise<RunErcOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot run ERC: ${problems.join('; ')}`, { problems });
    const raw = await this.context.mcp.invoke(
      ERC_TOOL,
      {
        schematic: input.schematic,
        ...(input.sheets ? { sheets: input.sheets } : {}),
        ...(input.project !== undefined ? { project: input.project } : {}),
        timeout_seconds: TOOL_SECONDS,
      },
      { timeoutMs: (TOOL_SECONDS + 10) * 1000 },
    );
    const result = judge(readToolResult(raw), input);
    this.logger.info('ran ERC', {
      kicadVersion: raw.kicad_version,
      passed: result.passed,
      errors: result.error_count,
      warnings: result.warning_count,
      sheets: result.sheets_checked.length,
    });
    return result;
  }
}
