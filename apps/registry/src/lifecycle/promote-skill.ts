import { Injectable } from '@nestjs/common';
import { JsonSchemaValidator } from '../../../../libs/contracts/src/index.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { PromotionEvidenceMissing, RequestInvalid } from '../problem/domain-errors.js';
import { LifecycleService } from './lifecycle.service.js';

export interface PromoteCommand {
  name: string;
  version: string;
  actor: string;
  reason?: string;
  force?: boolean;
}

/** REGISTERED → ACTIVE, on evidence: a clean validation report and every declared example valid. */
@Injectable()
export class PromoteSkill {
  private readonly validator = new JsonSchemaValidator();

  constructor(private readonly lifecycle: LifecycleService) {}

  async execute(command: PromoteCommand): Promise<SkillVersionRecord> {
    if (command.force && !command.reason?.trim()) {
      throw new RequestInvalid('A forced promotion needs a reason', [{ field: 'reason', message: 'required when force is true' }]);
    }
    return this.lifecycle.move({
      name: command.name,
      version: command.version,
      to: 'ACTIVE',
      via: 'promotion',
      actor: command.actor,
      reason: command.reason ?? null,
      forced: command.force ?? false,
      guard: (current) => {
        const { failures, collected } = this.collectEvidence(current);
        if (failures.length && !command.force) throw new PromotionEvidenceMissing(current.name, current.version, failures, collected);
        return { evidence: { ...collected, ...(failures.length ? { overridden_failures: failures } : {}) } };
      },
    });
  }

  /** What promotion rests on; `failures` lists what is missing. */
  collectEvidence(version: SkillVersionRecord): { failures: string[]; collected: Record<string, unknown> } {
    const failures: string[] = [];
    const errors = version.validation.filter((issue) => issue.severity === 'error');
    const warnings = version.validation.filter((issue) => issue.severity === 'warning');
    if (errors.length) failures.push(`validation report has ${errors.length} error(s)`);
    if (version.examples.length === 0) failures.push('the package declares no examples to serve as evidence');
    const examples = version.examples.map((example, index) => {
      const inputViolations = version.inputSchema ? this.validator.validate(version.inputSchema, example.input) : [];
      const outputViolations =
        example.output !== undefined && version.outputSchema ? this.validator.validate(version.outputSchema, example.output) : [];
      if (inputViolations.length) failures.push(`example ${index} input does not match the input schema`);
      if (outputViolations.length) failures.push(`example ${index} output does not match the output schema`);
      return {
        index,
        input_valid: inputViolations.length === 0,
        output_valid: example.output === undefined ? null : outputViolations.length === 0,
        violations: [...inputViolations, ...outputViolations],
      };
    });
    return {
      failures,
      collected: {
        content_hash: version.contentHash,
        validation: { errors: errors.length, warnings: warnings.length },
        examples,
      },
    };
  }
}
