import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { evaluateRegion, findInputProblems, placeSections, sortFindings } from './budget.js';
import { CheckMemoryBudgetInput, CheckMemoryBudgetOutput, type BudgetFinding, type RegionUsage } from './schema.js';

/** Checks that firmware sections fit the MCU memory regions with the required free margins. */
export class CheckMemoryBudgetHandler extends SkillBase<typeof CheckMemoryBudgetInput, typeof CheckMemoryBudgetOutput> {
  static readonly inputSchema = CheckMemoryBudgetInput;
  static readonly outputSchema = CheckMemoryBudgetOutput;

  override async validatePreconditions(input: CheckMemoryBudgetInput): Promise<string[]> {
    return findInputProblems(input);
  }

  async execute(input: CheckMemoryBudgetInput): Promise<CheckMemoryBudgetOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot check the memory budget: ${problems.join('; ')}`, { problems });

    const { placed, findings } = placeSections(input.regions, input.sections);
    const regions: RegionUsage[] = [];
    const all: BudgetFinding[] = [...findings];
    for (const region of input.regions) {
      const { usage, finding } = evaluateRegion(region, placed.get(region.name) ?? [], input.min_free_percent);
      regions.push(usage);
      if (finding) all.push(finding);
    }
    const sorted = sortFindings(all);
    const errorCount = sorted.filter((f) => f.severity === 'error').length;
    this.logger.info('checked memory budget', { regions: regions.length, errors: errorCount });
    return {
      passed: errorCount === 0,
      regions,
      findings: sorted,
      error_count: errorCount,
      warning_count: sorted.length - errorCount,
    };
  }
}
