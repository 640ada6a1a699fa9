import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { BOM_TOOL, buildBom, DEFAULT_GROUP_BY, findInputProblems, readToolResult } from './bom.js';
import { ExportBomInput, ExportBomOutput } from './schema.js';

/** Seconds kicad-cli may run (the skill's own budget is 120 s). */
const TOOL_SECONDS = 90;

/** Extracts the bill of materials of a KiCad schematic: grouped lines, totals and a CSV. */
export class ExportBomHandler extends SkillBase<typeof ExportBomInput, typeof ExportBomOutput> {
  static readonly inputSchema = ExportBomInput;
  static readonly outputSchema = ExportBomOutput;

  override async validatePreconditions(input: ExportBomInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (!(await this.context.mcp.isAvailable(BOM_TOOL))) {
      problems.unshift(`tool '${BOM_TOOL}' is not available: the kicad adapter is not reachable or kicad-cli is not installed there`);
    }
    return problems;
  }

  async execute(input: ExportBomInput): Promise<ExportBomOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot export the BOM: ${problems.join('; ')}`, { problems });
    const params: Record<string, unknown> = {
      schematic: input.schematic,
      group_by: input.group_by ?? DEFAULT_GROUP_BY,
      timeout_seconds: TOOL_SECONDS,
    };
    for (const key of ['sheets', 'project', 'exclude_dnp', 'include_excluded_from_bom'] as const)
      if (input[key] !== undefined) params[key] = input[key];
    const raw = await this.context.mcp.invoke(BOM_TOOL, params, { timeoutMs: (TOOL_SECONDS + 10) * 1000 });
    const bom = buildBom(readToolResult(raw), input);
    this.logger.info('exported BOM', { kicadVersion: raw.kicad_version, lines: bom.totals.line_items, parts: bom.totals.parts });
    return bom;
  }
}
