import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { compareSignal, findInputProblems } from './compare.js';
import { CompareResultsInput, CompareResultsOutput } from './schema.js';

/** Compares simulated series against reference series within absolute + relative tolerances. */
export class CompareResultsHandler extends SkillBase<typeof CompareResultsInput, typeof CompareResultsOutput> {
  static readonly inputSchema = CompareResultsInput;
  static readonly outputSchema = CompareResultsOutput;

  override async validatePreconditions(input: CompareResultsInput): Promise<string[]> {
    return findInputProblems(input.signals);
  }

  async execute(input: CompareResultsInput): Promise<CompareResultsOutput> {
    const problems = findInputProblems(input.signals);
    if (problems.length > 0) {
      throw new SkillExecutionError(`Cannot compare: ${problems.join('; ')}`, { problems });
    }
    const signals = input.signals.map((signal) => compareSignal(signal, signal.abs_tol ?? input.abs_tol, signal.rel_tol ?? input.rel_tol));
    const failed = signals.filter((s) => !s.passed).map((s) => s.name);
    this.logger.info('compared simulation results', { signals: signals.length, failed: failed.length });
    return {
      passed: failed.length === 0,
      signals_compared: signals.length,
      failed_signals: failed,
      signals,
    };
  }
}
