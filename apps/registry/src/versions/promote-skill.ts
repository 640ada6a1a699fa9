import { Injectable } from '@nestjs/common';
import { JsonSchemaValidator, type RunContract, outputMatchesExample, runContractOf } from '#contracts/index.js';
import { isTerminal } from '#executions/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { ExecuteSkill } from '../executions/execute-skill.js';
import { ExampleTwinSeeder } from '../twin/example-twin-seeder.js';
import { InvalidTransition, PromotionEvidenceMissing, RequestInvalid, SkillNotFound } from '../problem/domain-errors.js';
import { allowedTransitions } from '#contracts/index.js';
import { VersionRecorder } from './version-recorder.js';
import { inactiveDependencies } from '../catalog/dependency-rules.js';

export interface PromoteCommand {
  name: string;
  version: string;
  actor: string;
  reason?: string;
  force?: boolean;
}

interface ExampleEvidence {
  index: number;
  /** The tool it ran (Agent Skills versions); null for a TypeScript skill. */
  tool: string | null;
  input_valid: boolean;
  output_valid: boolean | null;
  violations: { pointer: string; message: string }[];
  execution_id: string | null;
  execution_status: string | null;
  output_matches: boolean | null;
  error: { code: string; message: string } | null;
}

/** Extra seconds a promotion waits for an example beyond the skill's own time budget. */
const EXAMPLE_WAIT_SLACK_SECONDS = 30;

/**
 * REGISTERED → ACTIVE on evidence: a clean validation report, and every declared example run through
 * the real executor, succeeding and, where an output is declared, returning exactly it.
 */
@Injectable()
export class PromoteSkill {
  private readonly validator = new JsonSchemaValidator();

  constructor(
    private readonly versions: VersionRecorder,
    private readonly catalog: SkillCatalog,
    private readonly executeSkill: ExecuteSkill,
    private readonly exampleTwin: ExampleTwinSeeder,
  ) {}

  async execute(command: PromoteCommand): Promise<SkillVersionRecord> {
    if (command.force && !command.reason?.trim()) {
      throw new RequestInvalid('A forced promotion needs a reason', [{ field: 'reason', message: 'required when force is true' }]);
    }
    // Decided on the database's state: another replica's write may not have reached this one's catalog yet.
    await this.catalog.reload(command.name);
    const version = this.catalog.version(command.name, command.version);
    if (!version) throw this.catalog.get(command.name) ? new SkillNotFound(command.name, command.version) : new SkillNotFound(command.name);
    if (version.status !== 'REGISTERED') {
      throw new InvalidTransition(version.name, version.version, version.status, 'ACTIVE', allowedTransitions(version.status));
    }
    const { failures, collected } = await this.collectEvidence(version, command.force ?? false);
    if (failures.length && !command.force) throw new PromotionEvidenceMissing(version.name, version.version, failures, collected);
    return this.versions.move({
      name: command.name,
      version: command.version,
      to: 'ACTIVE',
      via: 'promotion',
      actor: command.actor,
      reason: command.reason ?? null,
      forced: command.force ?? false,
      evidence: { ...collected, ...(failures.length ? { overridden_failures: failures } : {}) },
    });
  }

  /** What promotion rests on; `failures` lists what is missing. A forced promotion skips running examples. */
  async collectEvidence(
    version: SkillVersionRecord,
    skipRuns: boolean,
  ): Promise<{ failures: string[]; collected: Record<string, unknown> }> {
    const failures: string[] = [];
    const errors = version.validation.filter((issue) => issue.severity === 'error');
    const warnings = version.validation.filter((issue) => issue.severity === 'warning');
    if (errors.length) failures.push(`validation report has ${errors.length} error(s)`);
    const runs = examplesOf(version);
    if (version.format === 'typescript' && runs.length === 0) failures.push('the package declares no examples to serve as evidence');
    for (const tool of version.tools) {
      if (tool.script && tool.examples.length === 0) failures.push(`tool ${tool.name} declares no examples to serve as evidence`);
    }
    const inactive = inactiveDependencies(version.dependsOn, (name) => this.catalog.get(name));
    for (const dependency of inactive) failures.push(`dependency ${dependency.name} has no ACTIVE version in range ${dependency.range}`);
    const examples = await Promise.all(
      runs.map(async ({ example, index, contract }): Promise<ExampleEvidence> => {
        const label = contract.tool ? `tool ${contract.tool.name} example ${index}` : `example ${index}`;
        const inputViolations = contract.inputSchema ? this.validator.validate(contract.inputSchema, example.input) : [];
        const outputViolations =
          example.output !== undefined && contract.outputSchema ? this.validator.validate(contract.outputSchema, example.output) : [];
        const evidence: ExampleEvidence = {
          index,
          tool: contract.tool?.name ?? null,
          input_valid: inputViolations.length === 0,
          output_valid: example.output === undefined ? null : outputViolations.length === 0,
          violations: [...inputViolations, ...outputViolations],
          execution_id: null,
          execution_status: null,
          output_matches: null,
          error: null,
        };
        if (inputViolations.length) failures.push(`${label} input does not match the input schema`);
        if (outputViolations.length) failures.push(`${label} output does not match the output schema`);
        if (inputViolations.length || skipRuns) return evidence;
        await this.runExample(version, contract, example, label, evidence, failures);
        return evidence;
      }),
    );
    return {
      failures,
      collected: { content_hash: version.contentHash, validation: { errors: errors.length, warnings: warnings.length }, examples },
    };
  }

  private async runExample(
    version: SkillVersionRecord,
    contract: RunContract,
    example: SkillVersionRecord['examples'][number],
    label: string,
    evidence: ExampleEvidence,
    failures: string[],
  ): Promise<void> {
    const waitSeconds =
      contract.timeoutSeconds * Math.max(1, 1 + (contract.idempotent ? contract.retries : 0)) + EXAMPLE_WAIT_SLACK_SECONDS;
    try {
      // An example that needs work products runs on a promotion branch of its own, seeded with them.
      const branch = await this.exampleTwin.branchFor(version, example);
      const { execution } = await this.executeSkill.execute({
        name: version.name,
        version: version.version,
        tool: contract.tool?.name,
        input: example.input,
        branch,
        caller: 'system:promotion',
        purpose: 'promotion',
        waitSeconds,
      });
      evidence.execution_id = execution.id;
      evidence.execution_status = execution.status;
      if (!isTerminal(execution.status)) {
        failures.push(`${label} did not finish within ${waitSeconds} s (is an executor running?)`);
      } else if (execution.status !== 'SUCCEEDED') {
        evidence.error = execution.error ? { code: execution.error.code, message: execution.error.message } : null;
        failures.push(`${label} ${execution.status}: ${execution.error?.code ?? ''} ${execution.error?.message ?? ''}`.trim());
      } else if (example.output !== undefined) {
        evidence.output_matches = outputMatchesExample(execution.output, example.output);
        if (!evidence.output_matches) failures.push(`${label} returned output that differs from the declared output`);
      }
    } catch (error) {
      evidence.error = { code: (error as { code?: string }).code ?? 'ERROR', message: (error as Error).message };
      failures.push(`${label} could not be executed: ${(error as Error).message}`);
    }
  }
}

/** Every example promotion runs: a TypeScript version's own, or each executable tool's, with the contract it runs under. */
function examplesOf(version: SkillVersionRecord) {
  if (version.format === 'typescript') {
    const contract = runContractOf(version, null) as RunContract;
    return version.examples.map((example, index) => ({ example, index, contract }));
  }
  return version.tools
    .filter((tool) => tool.script)
    .flatMap((tool) => {
      const contract = runContractOf(version, tool.name) as RunContract;
      return tool.examples.map((example, index) => ({ example, index, contract }));
    });
}
