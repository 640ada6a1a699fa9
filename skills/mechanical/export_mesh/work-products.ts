/** The digital twin side of export_mesh: the geometry it reads, the mesh work product it writes. */
import { createHash } from 'node:crypto';
import { SkillExecutionError } from '@skill-registry/sdk';
import type { SkillContext, WorkProduct } from '@skill-registry/sdk';
import type { ExportMeshInput } from './schema.js';

export const GEO_MEDIA_TYPE = 'text/x-gmsh-geo';
export const STEP_MEDIA_TYPES = ['model/step', 'application/step'];
export const MESH_MEDIA_TYPE = 'text/x-calculix-inp';

type GeometryFormat = 'geo' | 'step';

/** The geometry to mesh, and where it came from (recorded on the mesh as its provenance). */
export interface Geometry {
  geo?: string;
  step?: string;
  /** One mesh per geometry and mesh name on a branch: re-meshing the same source revises that mesh. */
  sourceKey: string;
  sourceWorkProductId: string | null;
  sourceRevision: number | null;
  sourceFormat: 'geo' | 'step' | 'geo+step';
  /** Name of the geometry work product, when there is one. */
  sourceName: string | null;
}

/** What a cad_model holds: by its media type, else by its metadata `format`; null when neither says. */
function formatOf(product: WorkProduct): GeometryFormat | null {
  const mediaType = product.current.mediaType.toLowerCase();
  if (mediaType === GEO_MEDIA_TYPE) return 'geo';
  if (STEP_MEDIA_TYPES.includes(mediaType)) return 'step';
  const declared = product.current.metadata.format;
  return declared === 'geo' || declared === 'step' ? declared : null;
}

/** Problems with the work products the input names, on the caller's branch. */
export async function findWorkProductProblems(context: SkillContext, input: ExportMeshInput): Promise<string[]> {
  const problems: string[] = [];
  const branch = context.branch;
  if (input.geometry_work_product_id !== undefined) {
    const id = input.geometry_work_product_id;
    const geometry = await context.twin.getWorkProduct(id, { branch });
    if (geometry === null) problems.push(`Work product ${id} not found on branch ${branch}`);
    else if (geometry.kind !== 'cad_model') problems.push(`Work product ${id} is a ${geometry.kind}, not a cad_model to mesh`);
    else if (formatOf(geometry) === null) {
      problems.push(
        `Work product ${id} (${geometry.current.mediaType}) is neither a gmsh .geo script (${GEO_MEDIA_TYPE}) nor a STEP file ` +
          `(${STEP_MEDIA_TYPES[0]}); give it one of these media types or metadata.format "geo" or "step"`,
      );
    }
  }
  if (input.mesh_work_product_id !== undefined) {
    const id = input.mesh_work_product_id;
    const mesh = await context.twin.getWorkProduct(id, { branch });
    if (mesh === null) problems.push(`Work product ${id} not found on branch ${branch}`);
    else if (mesh.kind !== 'mesh') problems.push(`Work product ${id} is a ${mesh.kind}, not a mesh to add a revision to`);
  }
  return problems;
}

/** The geometry inline in the input, or read from the geometry work product on the caller's branch. */
export async function readGeometry(context: SkillContext, input: ExportMeshInput): Promise<Geometry> {
  const id = input.geometry_work_product_id;
  if (id === undefined) {
    if (input.geo === undefined && input.step === undefined) {
      throw new SkillExecutionError(
        'Cannot mesh: give the geometry as geo (a .geo script), step (STEP contents) or geometry_work_product_id',
      );
    }
    const hash = createHash('sha256')
      .update(input.geo ?? '')
      .update('\0')
      .update(input.step ?? '')
      .digest('hex');
    const format = input.geo !== undefined && input.step !== undefined ? 'geo+step' : input.geo !== undefined ? 'geo' : 'step';
    return {
      geo: input.geo,
      step: input.step,
      sourceKey: `inline:sha256:${hash}`,
      sourceWorkProductId: null,
      sourceRevision: null,
      sourceFormat: format,
      sourceName: null,
    };
  }
  const branch = context.branch;
  const product = await context.twin.getWorkProduct(id, { branch });
  const format = product && formatOf(product);
  if (!product || !format)
    throw new SkillExecutionError(`Cannot mesh work product ${id} on branch ${branch}: it is gone or not a geometry`);
  const content = await context.twin.readContent(id, { branch, revision: product.current.revision });
  const text = content.text();
  return {
    geo: format === 'geo' ? text : undefined,
    step: format === 'step' ? text : undefined,
    sourceKey: `work_product:${id}`,
    sourceWorkProductId: id,
    sourceRevision: content.revision,
    sourceFormat: format,
    sourceName: product.name,
  };
}

/** Writes the mesh on the caller's branch: a revision of the given or the matching mesh, else a new mesh work product. */
export async function writeMesh(
  context: SkillContext,
  input: ExportMeshInput,
  geometry: Geometry,
  inp: string,
  counts: Record<string, unknown>,
): Promise<{ id: string; revision: number }> {
  const branch = context.branch;
  const existing = input.mesh_work_product_id ? await context.twin.getWorkProduct(input.mesh_work_product_id, { branch }) : null;
  const name = input.mesh_name ?? existing?.name ?? (geometry.sourceName ? `${geometry.sourceName} mesh` : 'mesh');
  const meshes = existing ? [] : await context.twin.listWorkProducts({ kind: 'mesh', branch });
  const sameSource = meshes.find((mesh) => mesh.name === name && mesh.current.metadata.source_key === geometry.sourceKey);
  const written = await context.twin.putWorkProduct({
    id: existing?.id ?? sameSource?.id,
    kind: 'mesh',
    name,
    content: inp,
    mediaType: MESH_MEDIA_TYPE,
    metadata: {
      source_key: geometry.sourceKey,
      source_work_product_id: geometry.sourceWorkProductId,
      source_revision: geometry.sourceRevision,
      source_format: geometry.sourceFormat,
      ...counts,
      mesh_options: input.mesh ?? {},
    },
    branch,
  });
  return { id: written.id, revision: written.revision };
}
