import { SkillBase, SkillExecutionError, z } from '@skill-registry/sdk';
import { round10, summarizeMesh } from './mesh.js';
import { ExportMeshInput, ExportMeshOutput } from './schema.js';
import type { SanityCheck } from './schema.js';
import { findWorkProductProblems, readGeometry, writeMesh } from './work-products.js';

export const MESH_TOOL = 'gmsh.export_mesh';
const TOOL_TIMEOUT_MS = 170_000;
const GMSH_TIMEOUT_SECONDS = 160;

const count = z.number().int().min(0);

/** The parts of the gmsh.export_mesh result this skill reads. */
const ExportResult = z.object({
  inp: z.string(),
  node_count: count,
  element_count: count,
  element_types: z.record(z.string(), count),
  element_sets: z.array(z.object({ name: z.string(), element_count: count })),
  node_sets: z.array(z.object({ name: z.string(), node_count: count })),
  surfaces: z.array(z.object({ name: z.string(), face_count: count })),
  dropped_elements: count.optional(),
  warnings: z.array(z.string()).optional(),
});

/**
 * Meshes a geometry (inline, or a cad_model work product of the caller's branch) with gmsh into a CalculiX-ready .inp
 * (the seed names freecad.export_mesh), sanity-checks the mesh (refuses an empty one, flags inverted elements, count
 * mismatches, too many elements and a wrong volume) and writes it as a mesh work product on the caller's branch.
 */
export class ExportMeshHandler extends SkillBase<typeof ExportMeshInput, typeof ExportMeshOutput> {
  static readonly inputSchema = ExportMeshInput;
  static readonly outputSchema = ExportMeshOutput;

  override async validatePreconditions(input: ExportMeshInput): Promise<string[]> {
    const problems: string[] = [];
    const inline = input.geo !== undefined || input.step !== undefined;
    if (inline && input.geometry_work_product_id !== undefined) {
      problems.push('give the geometry either inline (geo and/or step) or as geometry_work_product_id, not both');
    } else if (!inline && input.geometry_work_product_id === undefined) {
      problems.push(
        'give the geometry as geo (a .geo script), step (STEP contents) or geometry_work_product_id (a cad_model work product)',
      );
    }
    problems.push(...(await findWorkProductProblems(this.context, input)));
    const mesh = input.mesh;
    if (mesh?.size_min !== undefined && mesh.size_max !== undefined && mesh.size_min > mesh.size_max) {
      problems.push(`mesh.size_min (${mesh.size_min}) is larger than mesh.size_max (${mesh.size_max})`);
    }
    if (!(await this.context.mcp.isAvailable(MESH_TOOL))) problems.push(`mesh generation tool (${MESH_TOOL}) is not available`);
    return problems;
  }

  async execute(input: ExportMeshInput): Promise<ExportMeshOutput> {
    const geometry = await readGeometry(this.context, input);
    const raw = await this.context.mcp.invoke(
      MESH_TOOL,
      {
        ...(geometry.geo !== undefined ? { geo: geometry.geo } : {}),
        ...(geometry.step !== undefined ? { step: geometry.step } : {}),
        ...(input.mesh ? { mesh: input.mesh } : {}),
        timeout_seconds: GMSH_TIMEOUT_SECONDS,
      },
      { timeoutMs: TOOL_TIMEOUT_MS, signal: this.context.signal },
    );
    const parsed = ExportResult.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
      throw new SkillExecutionError(`${MESH_TOOL} returned a result this skill cannot read: ${problems.join('; ')}`, { problems });
    }
    const result = parsed.data;
    const summary = summarizeMesh(result.inp);
    if (result.element_count === 0 || summary.elementCount === 0) {
      throw new SkillExecutionError(
        'gmsh produced an empty mesh (no solid elements): the geometry needs a closed volume in a Physical Volume, and a mesh size ' +
          'smaller than the part',
        { element_count: result.element_count, elements_in_inp: summary.elementCount },
      );
    }

    const checks: SanityCheck[] = [];
    const countsMatch = summary.nodeCount === result.node_count && summary.elementCount === result.element_count;
    checks.push({
      name: 'counts_consistent',
      passed: countsMatch,
      message: countsMatch
        ? `the .inp holds ${summary.nodeCount} nodes and ${summary.elementCount} elements, as reported`
        : `the .inp holds ${summary.nodeCount} nodes and ${summary.elementCount} elements, but gmsh reported ${result.node_count} and ${result.element_count}`,
    });
    const inverted = summary.invertedElements;
    const unknown = summary.unknownTypes.length > 0 ? ` (not checked: element types ${summary.unknownTypes.join(', ')})` : '';
    checks.push({
      name: 'no_inverted_elements',
      passed: inverted.length === 0,
      message:
        inverted.length === 0
          ? `every element has a positive volume${unknown}`
          : `${inverted.length} element(s) with a non-positive corner volume (inverted or degenerate), e.g. ${inverted.slice(0, 10).join(', ')}${unknown}`,
    });
    if (input.max_elements !== undefined) {
      const within = result.element_count <= input.max_elements;
      checks.push({
        name: 'within_max_elements',
        passed: within,
        message: within
          ? `${result.element_count} elements, within the limit of ${input.max_elements}`
          : `${result.element_count} elements, more than the limit of ${input.max_elements}: use a larger size_max/size_min or size_factor`,
      });
    }
    const meshVolume = summary.volume === null ? null : round10(summary.volume);
    if (input.expected_volume !== undefined) {
      const expected = input.expected_volume;
      const difference = meshVolume === null ? null : round10((meshVolume - expected) / expected);
      const within = difference !== null && Math.abs(difference) <= input.volume_rel_tol;
      checks.push({
        name: 'volume_matches',
        passed: within,
        message:
          difference === null
            ? `the mesh volume could not be computed (element types ${summary.unknownTypes.join(', ') || 'unknown'}), so it was not compared with ${expected}`
            : `mesh volume ${meshVolume} vs expected ${expected} (${difference >= 0 ? '+' : ''}${round10(difference * 100)} %, allowed ±${round10(input.volume_rel_tol * 100)} %)`,
      });
    }
    const passed = checks.every((check) => check.passed);
    const elementTypes = Object.entries(result.element_types).map(([type, n]) => ({ type, count: n }));
    const mesh = await writeMesh(this.context, input, geometry, result.inp, {
      node_count: result.node_count,
      element_count: result.element_count,
      element_types: result.element_types,
      element_sets: result.element_sets.map((set) => set.name),
      node_sets: result.node_sets.map((set) => set.name),
      surfaces: result.surfaces.map((surface) => surface.name),
      mesh_volume: meshVolume,
      passed,
    });
    this.logger.info('exported mesh', {
      nodes: result.node_count,
      elements: result.element_count,
      passed,
      mesh_work_product_id: mesh.id,
      mesh_revision: mesh.revision,
    });

    return {
      mesh_work_product_id: mesh.id,
      mesh_revision: mesh.revision,
      inp: result.inp,
      node_count: result.node_count,
      element_count: result.element_count,
      element_types: elementTypes,
      element_sets: result.element_sets,
      node_sets: result.node_sets,
      surfaces: result.surfaces,
      mesh_volume: meshVolume,
      smallest_element_volume: summary.smallestElementVolume === null ? null : round10(summary.smallestElementVolume),
      dropped_elements: result.dropped_elements ?? 0,
      passed,
      checks,
      warnings: result.warnings ?? [],
    };
  }
}
