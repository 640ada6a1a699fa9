import { SkillBase, SkillExecutionError, z } from '@skill-registry/sdk';
import { ValidateStressInput, ValidateStressOutput } from './schema.js';
import type { StressResult } from './schema.js';

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
 * Runs a CalculiX static stress analysis and checks the largest von Mises stress of every element set against
 * every constraint: allowable = max_von_mises_mpa / safety_factor (the seed's validate_stress logic).
 */
export class ValidateStressHandler extends SkillBase<typeof ValidateStressInput, typeof ValidateStressOutput> {
  static readonly inputSchema = ValidateStressInput;
  static readonly outputSchema = ValidateStressOutput;

  override async validatePreconditions(_input: ValidateStressInput): Promise<string[]> {
    // The seed also looks the work product up in the digital twin; this service has none (the deck is the input).
    if (!(await this.context.mcp.isAvailable(FEA_TOOL))) return [`CalculiX FEA tool (${FEA_TOOL}) is not available`];
    return [];
  }

  async execute(input: ValidateStressInput): Promise<ValidateStressOutput> {
    this.logger.info('Running stress validation', { work_product_id: input.work_product_id, load_case: input.load_case });
    const raw = await this.context.mcp.invoke(
      FEA_TOOL,
      {
        deck: input.deck_inp,
        ...(input.include_files ? { include_files: input.include_files } : {}),
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
    input.constraints.forEach((constraint, constraintIndex) => {
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
    return {
      work_product_id: input.work_product_id,
      load_case: input.load_case,
      overall_passed: overallPassed,
      results,
      max_stress_mpa: maxStress,
      critical_region: criticalRegion,
      solver_time_seconds: fea.solver_time ?? 0,
      mesh_elements: fea.mesh_elements ?? 0,
      mesh_nodes: fea.mesh_nodes ?? null,
      max_displacement_mm: displacement === undefined ? null : fea.length_unit === 'm' ? displacement * 1000 : displacement,
      warnings: fea.warnings ?? [],
    };
  }
}

function parseFeaResult(raw: Record<string, unknown>): FeaResult {
  const parsed = FeaResult.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  throw new SkillExecutionError(`${FEA_TOOL} returned a result this skill cannot read: ${problems.join('; ')}`, { problems });
}
