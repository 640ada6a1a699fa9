/** The digital twin side of run_thermal: the mesh it analyses, the constraints it reads, the result it writes. */
import { SkillPreconditionError } from '@skill-registry/sdk';
import type { SkillContext } from '@skill-registry/sdk';
import type { RunThermalInput, TemperatureLimit } from './schema.js';

/** Media types of CalculiX input a mesh work product may carry (export_mesh writes the first). */
export const CALCULIX_MEDIA_TYPES = ['text/x-calculix-inp', 'text/plain'];
export const TEMPERATURE_CONSTRAINT_KIND = 'max_temperature';
/** Spellings of degrees Celsius as a temperature_unit: max_temperature constraints are in degC. */
const CELSIUS = ['degc', '°c', 'c', 'celsius'];
const ANALYSIS = 'thermal';

/** The limits to check, and where they came from; or why the work product's constraints cannot be used. */
export type LimitChoice = { limits: TemperatureLimit[]; source: 'input' | 'twin' | 'none' } | { problem: string };

/** The work product's content as the deck includes it. */
export interface AnalysedModel {
  inp: string;
  revision: number;
  name: string;
}

/** Why the work product cannot be analysed on the caller's branch, or null. */
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

/** The input's limits, else the work product's max_temperature constraints on the caller's branch, else none. */
export async function chooseLimits(context: SkillContext, input: RunThermalInput): Promise<LimitChoice> {
  if (input.limits.length > 0) return { limits: input.limits, source: 'input' };
  const id = input.work_product_id;
  if (id === undefined) return { limits: [], source: 'none' };
  const branch = context.branch;
  const stored = (await context.twin.getConstraints(id, { branch })).filter(
    (constraint) => constraint.kind === TEMPERATURE_CONSTRAINT_KIND,
  );
  if (stored.length === 0) return { limits: [], source: 'none' };
  if (!CELSIUS.includes(input.temperature_unit.toLowerCase())) {
    return {
      problem:
        `the ${TEMPERATURE_CONSTRAINT_KIND} constraints of work product ${id} are in degC but the deck's temperature_unit is ` +
        `${input.temperature_unit}: pass limits in ${input.temperature_unit}`,
    };
  }
  const limits: TemperatureLimit[] = [];
  for (const [index, constraint] of stored.entries()) {
    const { max_temperature_c: max, region } = constraint;
    const regionValid = region === undefined || (typeof region === 'string' && region !== '');
    if (typeof max !== 'number' || !Number.isFinite(max) || !regionValid) {
      return {
        problem: `${TEMPERATURE_CONSTRAINT_KIND} constraint ${index} of work product ${id} on branch ${branch} is unusable: it needs a numeric max_temperature_c and at most a region name`,
      };
    }
    limits.push(typeof region === 'string' ? { set: region, max_allowed: max } : { max_allowed: max });
  }
  return { limits, source: 'twin' };
}

/** The work product's current content on the caller's branch. */
export async function readModel(context: SkillContext, id: string): Promise<AnalysedModel> {
  const branch = context.branch;
  const product = await context.twin.getWorkProduct(id, { branch });
  if (product === null) throw new SkillPreconditionError('run_thermal', [`Work product ${id} not found on branch ${branch}`]);
  const content = await context.twin.readContent(id, { branch, revision: product.current.revision });
  return { inp: content.text(), revision: content.revision, name: product.name };
}

/**
 * Writes the result as a simulation_result on the caller's branch: one work product per (analysed work product,
 * load case), so a re-run adds a revision, and an identical result (no solver time in it) is no new revision.
 */
export async function writeResult(
  context: SkillContext,
  workProductId: string,
  loadCase: string | null,
  model: AnalysedModel,
  result: Record<string, unknown> & { passed: boolean },
): Promise<{ id: string; revision: number }> {
  const branch = context.branch;
  const results = await context.twin.listWorkProducts({ kind: 'simulation_result', branch });
  const previous = results.find(
    ({ current }) =>
      current.metadata.analysis === ANALYSIS &&
      current.metadata.source_work_product_id === workProductId &&
      (current.metadata.load_case ?? null) === loadCase,
  );
  const written = await context.twin.putWorkProduct({
    id: previous?.id,
    kind: 'simulation_result',
    name: `${model.name}: thermal${loadCase === null ? '' : `, ${loadCase}`}`,
    content: `${JSON.stringify({ analysis: ANALYSIS, ...result }, null, 2)}\n`,
    mediaType: 'application/json',
    metadata: {
      analysis: ANALYSIS,
      source_work_product_id: workProductId,
      source_revision: model.revision,
      load_case: loadCase,
      passed: result.passed,
    },
    branch,
  });
  return { id: written.id, revision: written.revision };
}
