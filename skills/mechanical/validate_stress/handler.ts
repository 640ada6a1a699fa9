import { SkillBase, SkillExecutionError, SkillPreconditionError, z } from '@skill-registry/sdk';
import { ValidateStressInput, ValidateStressOutput } from './schema.js';
import type { StressResult } from './schema.js';
import { chooseConstraints, findWorkProductProblem, readModel, writeResult } from './work-products.js';

export const FEA_TOOL = 'calculix.run_fea';
/** Time the skill gives one CalculiX run (the skill's own budget is 300 s). */
const TOOL_TIMEOUT_MS = 280_000;
/** ccx is stopped by the adapter a little earlier, so a slow model ends with the adapter's PROGRAM_TIMEOUT message. */
const SOLVER_TIMEOUT_SECONDS = 270;

const finite = z.number().refine(Number.isFinite, 'must be a finite number');

/** The parts of the calculix.run_fea result this skill reads; anything else is ignored. */
const FeaResult = z.object({
  max_von_mises: z.record(z.string(), finite.min(0)).refine((map) => Object.keys(map).length > 0, 'has no regions'),
  solver_time: finite.min(0).optional(),
  mesh_elements: z.number().int().min(0).optional(),
  mesh_nodes: z.number().int().min(0).optional(),
  stress_unit: z.literal('MPa').optional(),
  length_unit: z.enum(['mm', 'm']).optional(),
  displacement: z.object({ max_magnitude: z.object({ value: finite.min(0) }) }).optional(),
  warnings: z.array(z.string()).optional(),
});
type FeaResult = z.infer<typeof FeaResult>;

/**
 * Runs a CalculiX static stress analysis of a mesh work product of the caller's branch and checks the largest von
 * Mises stress of every element set against every constraint: allowable = max_von_mises_mpa / safety_factor (the
 * seed's validate_stress logic). The constraints default to the work product's; the result is written back to the
 * branch as a simulation_result.
 */
export class ValidateStressHandler extends SkillBase<typeof ValidateStressInput, typeof ValidateStressOutput> {
  static readonly inputSchema = ValidateStressInput;
  static readonly outputSchema = ValidateStressOutput;

  override async validatePreconditions(input: ValidateStressInput): Promise<string[]> {
    const errors: string[] = [];
    // Check that the mesh work product exists on the caller's branch (seed 000's check), then what it carries.
    const missing = await findWorkProductProblem(this.context, input.work_product_id);
    if (missing !== null) errors.push(missing);
    else {
      const choice = await chooseConstraints(this.context, input);
      if ('problem' in choice) errors.push(choice.problem);
    }
    errors.push(...findDeckProblems(input));
    // Check that CalculiX is available.
    if (!(await this.context.mcp.isAvailable(FEA_TOOL))) errors.push(`CalculiX FEA tool (${FEA_TOOL}) is not available`);
    return errors;
  }

  async execute(input: ValidateStressInput): Promise<ValidateStressOutput> {
    this.logger.info('Running stress validation', { work_product_id: input.work_product_id, load_case: input.load_case });
    const choice = await chooseConstraints(this.context, input);
    if ('problem' in choice) throw new SkillPreconditionError('validate_stress', [choice.problem]);
    const { constraints, source: constraintsSource } = choice;
    const model = await readModel(this.context, input.work_product_id);
    const raw = await this.context.mcp.invoke(
      FEA_TOOL,
      {
        deck: input.deck_inp,
        include_files: [{ name: input.mesh_include_name, content: model.inp }, ...(input.include_files ?? [])],
        unit_system: input.unit_system,
        ...(input.regions ? { regions: input.regions } : {}),
        timeout_seconds: SOLVER_TIMEOUT_SECONDS,
      },
      { timeoutMs: TOOL_TIMEOUT_MS, signal: this.context.signal },
    );
    const fea = parseFeaResult(raw);

    // Process results against constraints: one result per (constraint, region), exactly as the seed does.
    const results: StressResult[] = [];
    let maxStress = 0;
    let criticalRegion = '';
    constraints.forEach((constraint, constraintIndex) => {
      for (const [region, stress] of Object.entries(fea.max_von_mises)) {
        const allowable = constraint.max_von_mises_mpa / constraint.safety_factor;
        // Infinite when the region is unstressed: carried as null (JSON has no Infinity).
        const safetyFactorAchieved = stress > 0 ? constraint.max_von_mises_mpa / stress : null;
        results.push({
          region,
          constraint_index: constraintIndex,
          material: constraint.material,
          max_von_mises_mpa: stress,
          allowable_mpa: allowable,
          safety_factor_required: constraint.safety_factor,
          safety_factor_achieved: safetyFactorAchieved,
          passed: stress <= allowable,
        });
        if (stress > maxStress) {
          maxStress = stress;
          criticalRegion = region;
        }
      }
    });
    const overallPassed = results.every((result) => result.passed);
    this.logger.info('Stress validation finished', {
      overall_passed: overallPassed,
      checks: results.length,
      failed: results.filter((result) => !result.passed).length,
      critical_region: criticalRegion,
      max_stress_mpa: maxStress,
    });

    const displacement = fea.displacement?.max_magnitude.value;
    const analysis = {
      work_product_id: input.work_product_id,
      source_revision: model.revision,
      load_case: input.load_case,
      constraints_source: constraintsSource,
      constraints,
      overall_passed: overallPassed,
      results,
      max_stress_mpa: maxStress,
      critical_region: criticalRegion,
      mesh_elements: fea.mesh_elements ?? 0,
      mesh_nodes: fea.mesh_nodes ?? null,
      max_displacement_mm: displacement === undefined ? null : fea.length_unit === 'm' ? displacement * 1000 : displacement,
      warnings: fea.warnings ?? [],
    };
    // The solver time is left out of the stored result: it differs run to run, and an identical result is no new revision.
    const written = await writeResult(this.context, input, model, analysis);
    const { constraints: _checked, ...output } = analysis;
    return {
      ...output,
      result_work_product_id: written.id,
      result_revision: written.revision,
      solver_time_seconds: fea.solver_time ?? 0,
    };
  }
}

/** The deck must read the work product's mesh, under a name no other include file takes. */
function findDeckProblems(input: ValidateStressInput): string[] {
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

function parseFeaResult(raw: Record<string, unknown>): FeaResult {
  const parsed = FeaResult.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  throw new SkillExecutionError(`${FEA_TOOL} returned a result this skill cannot read: ${problems.join('; ')}`, { problems });
}
