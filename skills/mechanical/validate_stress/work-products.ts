/** The digital twin side of validate_stress: the mesh it analyses, the constraints it reads, the result it writes. */
import { SkillPreconditionError } from '@skill-registry/sdk';
import type { SkillContext } from '@skill-registry/sdk';
import { StressConstraint, type ValidateStressInput } from './schema.js';

/** Media types of CalculiX input a mesh work product may carry (export_mesh writes the first). */
export const CALCULIX_MEDIA_TYPES = ['text/x-calculix-inp', 'text/plain'];
export const STRESS_CONSTRAINT_KIND = 'max_von_mises_stress';
const ANALYSIS = 'static_stress';

/** The constraints to check, and where they came from; or why there are none. */
export type ConstraintChoice = { constraints: StressConstraint[]; source: 'input' | 'twin' } | { problem: string };

/** The work product's content as the deck includes it. */
export interface AnalysedModel {
  inp: string;
  revision: number;
  name: string;
}

/** Why the work product cannot be analysed on the caller's branch, or null (seed 000's check, plus its format). */
export async function findWorkProductProblem(context: SkillContext, id: string): Promise<string | null> {
  const branch = context.branch;
  const product = await context.twin.getWorkProduct(id, { branch });
  if (product === null) return `Work product ${id} not found on branch ${branch}`;
  if (!CALCULIX_MEDIA_TYPES.includes(product.current.mediaType.toLowerCase())) {
    return (
      `Work product ${id} is ${product.current.mediaType} (a ${product.kind}), not CalculiX input (${CALCULIX_MEDIA_TYPES[0]}): ` +
      'mesh a cad_model with export_mesh first and pass its mesh_work_product_id'
    );
  }
  return null;
}

/** The input's constraints, else the work product's max_von_mises_stress constraints on the caller's branch. */
export async function chooseConstraints(context: SkillContext, input: ValidateStressInput): Promise<ConstraintChoice> {
  if (input.constraints) return { constraints: input.constraints, source: 'input' };
  const branch = context.branch;
  const id = input.work_product_id;
  const stored = (await context.twin.getConstraints(id, { branch })).filter((constraint) => constraint.kind === STRESS_CONSTRAINT_KIND);
  if (stored.length === 0) {
    return {
      problem: `no stress constraints: pass constraints, or set ${STRESS_CONSTRAINT_KIND} constraints on work product ${id} on branch ${branch}`,
    };
  }
  const constraints: StressConstraint[] = [];
  for (const [index, { kind: _kind, ...fields }] of stored.entries()) {
    const parsed = StressConstraint.safeParse(fields);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
      return { problem: `${STRESS_CONSTRAINT_KIND} constraint ${index} of work product ${id} on branch ${branch} is unusable: ${issues}` };
    }
    constraints.push(parsed.data);
  }
  return { constraints, source: 'twin' };
}

/** The work product's current content on the caller's branch. */
export async function readModel(context: SkillContext, id: string): Promise<AnalysedModel> {
  const branch = context.branch;
  const product = await context.twin.getWorkProduct(id, { branch });
  if (product === null) throw new SkillPreconditionError('validate_stress', [`Work product ${id} not found on branch ${branch}`]);
  const content = await context.twin.readContent(id, { branch, revision: product.current.revision });
  return { inp: content.text(), revision: content.revision, name: product.name };
}

/**
 * Writes the result as a simulation_result on the caller's branch: one work product per (analysed work product,
 * load case), so a re-run adds a revision, and an identical result (no solver time in it) is no new revision.
 */
export async function writeResult(
  context: SkillContext,
  input: ValidateStressInput,
  model: AnalysedModel,
  result: Record<string, unknown> & { overall_passed: boolean },
): Promise<{ id: string; revision: number }> {
  const branch = context.branch;
  const metadata = {
    analysis: ANALYSIS,
    source_work_product_id: input.work_product_id,
    source_revision: model.revision,
    load_case: input.load_case,
    overall_passed: result.overall_passed,
  };
  const results = await context.twin.listWorkProducts({ kind: 'simulation_result', branch });
  const previous = results.find(
    ({ current }) =>
      current.metadata.analysis === ANALYSIS &&
      current.metadata.source_work_product_id === input.work_product_id &&
      current.metadata.load_case === input.load_case,
  );
  const written = await context.twin.putWorkProduct({
    id: previous?.id,
    kind: 'simulation_result',
    name: `${model.name}: static stress, ${input.load_case}`,
    content: `${JSON.stringify({ analysis: ANALYSIS, ...result }, null, 2)}\n`,
    mediaType: 'application/json',
    metadata,
    branch,
  });
  return { id: written.id, revision: written.revision };
}
