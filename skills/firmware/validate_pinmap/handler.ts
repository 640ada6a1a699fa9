import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { sortFindings } from './pins.js';
import { buildBoard, checkAssignments, checkSchematic, findInputProblems } from './rules.js';
import { ValidatePinmapInput, ValidatePinmapOutput } from './schema.js';

/** Checks a firmware pin map against the MCU's pin capabilities and the schematic's nets. */
export class ValidatePinmapHandler extends SkillBase<typeof ValidatePinmapInput, typeof ValidatePinmapOutput> {
  static readonly inputSchema = ValidatePinmapInput;
  static readonly outputSchema = ValidatePinmapOutput;

  override async validatePreconditions(input: ValidatePinmapInput): Promise<string[]> {
    return findInputProblems(input);
  }

  async execute(input: ValidatePinmapInput): Promise<ValidatePinmapOutput> {
    const problems = findInputProblems(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot validate the pin map: ${problems.join('; ')}`, { problems });
    const board = buildBoard(input);
    const findings = sortFindings([...checkAssignments(input, board), ...checkSchematic(input, board)]);
    const errorCount = findings.filter((f) => f.severity === 'error').length;
    this.logger.info('validated pin map', { assignments: input.pin_map.length, errors: errorCount });
    return {
      valid: errorCount === 0,
      mcu_part_number: input.mcu.part_number,
      assignments_checked: input.pin_map.length,
      schematic_checked: input.schematic_nets !== undefined,
      error_count: errorCount,
      warning_count: findings.length - errorCount,
      findings,
    };
  }
}
