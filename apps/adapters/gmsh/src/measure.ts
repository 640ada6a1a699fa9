import { defineTool, diagnosticsOf, inputRejected, ToolFailure } from '../../common/src/index.js';
import type { Program } from '../../common/src/index.js';
import { gmshMessages, MODEL_GEO, runGmsh, writeGeometry } from './gmsh-run.js';
import { parseModelEntities } from './msh-entities.js';
import type { ModelEntities, PhysicalGroup } from './msh-entities.js';
import { measureInputSchema, measureOutputSchema } from './schema.js';
import type { MeasureOutput } from './schema.js';

type Vec3 = [number, number, number];
const DIM_KEYWORD = ['Point', 'Curve', 'Surface', 'Volume'];
/** gmsh's answer when Mass/CenterOfMass are used on built-in kernel geometry. */
const NEEDS_OCC = /only available with OpenCASCADE/i;

interface EntityMeasure {
  mass: number | null;
  centroid: Vec3 | null;
  box: [Vec3, Vec3];
}

/** `gmsh.measure`: bounding box, volume, areas per physical surface and distances between named groups. */
export function measureTool(gmsh: Program) {
  return defineTool({
    name: 'measure',
    title: 'Geometry measurement (gmsh)',
    description:
      'Measure a geometry (.geo script and/or STEP) with gmsh: bounding box, total volume and area, volume/area/length and ' +
      'centroid of every physical group, and distances between named physical groups (points exactly, others by centroid).',
    capability: 'geometry_measurement',
    category: 'computation',
    program: gmsh,
    inputSchema: measureInputSchema,
    outputSchema: measureOutputSchema,
    timeoutSecondsOf: (input) => input.timeout_seconds,
    async handler(input, context): Promise<MeasureOutput> {
      const script = await writeGeometry(context, input);
      // 1. The model's entities and physical groups (no mesh), as MSH 4.1.
      const listing = await runGmsh(context, [script, '-0', '-o', 'entities.msh']);
      const entitiesText = await context.readResult('entities.msh');
      if (entitiesText === null) throw new ToolFailure('PROGRAM_FAILED', 'gmsh did not write the model entities', diagnosticsOf(listing));
      const model = parseModelEntities(entitiesText);
      const topDim = [3, 2, 1, 0].find((dim) => model.tags[dim].length > 0);
      if (topDim === undefined) throw inputRejected('the geometry has no entities');

      // 2. CAD properties of the entities, printed by a generated script (Mass/CenterOfMass need OpenCASCADE).
      const wanted = entitiesToMeasure(model, topDim);
      await context.writeInput('measure.geo', measureScript(wanted, true));
      let run = await runGmsh(context, ['measure.geo', '-0', '-o', 'measure.geo_unrolled'], [NEEDS_OCC]);
      const warnings = gmshMessages(listing, 'Warning');
      let occ = !gmshMessages(run, 'Error').some((line) => NEEDS_OCC.test(line));
      if (!occ) {
        warnings.push('the model uses the built-in geometry kernel: volumes, areas and centroids need SetFactory("OpenCASCADE")');
        await context.writeInput('measure-box.geo', measureScript(wanted, false));
        run = await runGmsh(context, ['measure-box.geo', '-0', '-o', 'measure-box.geo_unrolled']);
      }
      const printed = await context.readResult('measure.txt');
      if (printed === null) throw new ToolFailure('PROGRAM_FAILED', 'gmsh did not print the measurements', diagnosticsOf(run));
      const measures = parseMeasures(printed, occ);
      occ &&= measures.size > 0;

      const groups = model.physicalGroups.map((group) => describeGroup(group, model, measures, occ));
      const byDim = (dim: number) =>
        Object.fromEntries(groups.filter((g) => g.dimension === dim && g.measure !== null).map((g) => [g.name, g.measure as number]));
      const total = (dim: number) =>
        occ ? model.tags[dim].reduce((sum, tag) => sum + (measures.get(`${dim}:${tag}`)?.mass ?? 0), 0) : null;

      return {
        bounding_box: boundingBox(model, measures, topDim),
        volume: model.tags[3].length > 0 ? total(3) : occ ? 0 : null,
        surface_area: model.tags[2].length > 0 ? total(2) : occ ? 0 : null,
        volumes: byDim(3),
        surface_areas: byDim(2),
        curve_lengths: byDim(1),
        physical_groups: groups,
        distances: (input.distances ?? []).map(({ from, to }) => distanceBetween(from, to, groups)),
        entity_counts: {
          points: model.tags[0].length,
          curves: model.tags[1].length,
          surfaces: model.tags[2].length,
          volumes: model.tags[3].length,
        },
        kernel: occ ? 'opencascade' : 'built-in',
        gmsh_version: (await gmsh.probe()).version,
        warnings: [...new Set([...warnings, ...gmshMessages(run, 'Warning')])].slice(0, 50),
      };
    },
  });
}

/** Every volume and surface (for totals and the bounding box), plus the curves of physical groups. */
function entitiesToMeasure(model: ModelEntities, topDim: number): [number, number][] {
  const wanted = new Set<string>();
  for (const dim of [2, 3]) for (const tag of model.tags[dim]) wanted.add(`${dim}:${tag}`);
  for (const tag of model.tags[topDim]) if (topDim > 0) wanted.add(`${topDim}:${tag}`);
  for (const group of model.physicalGroups) if (group.dim > 0) for (const tag of group.entities) wanted.add(`${group.dim}:${tag}`);
  return [...wanted].map((key) => key.split(':').map(Number) as [number, number]);
}

/** A .geo script that merges the model and prints `dim tag mass cx cy cz xmin ymin zmin xmax ymax zmax` per entity. */
function measureScript(entities: [number, number][], withMass: boolean): string {
  const lines = [`Merge "${MODEL_GEO}";`, 'Printf("measurements") > "measure.txt";'];
  for (const [dim, tag] of entities) {
    const ref = `${DIM_KEYWORD[dim]}{${tag}}`;
    lines.push(`bb[] = BoundingBox ${ref};`);
    if (withMass) {
      lines.push(`m = Mass ${ref};`, `c[] = CenterOfMass ${ref};`);
      lines.push(
        `Printf("${dim} ${tag} %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g", m, c[0], c[1], c[2], bb[0], bb[1], bb[2], bb[3], bb[4], bb[5]) >> "measure.txt";`,
      );
    } else {
      lines.push(
        `Printf("${dim} ${tag} nan nan nan nan %.17g %.17g %.17g %.17g %.17g %.17g", bb[0], bb[1], bb[2], bb[3], bb[4], bb[5]) >> "measure.txt";`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function parseMeasures(text: string, withMass: boolean): Map<string, EntityMeasure> {
  const measures = new Map<string, EntityMeasure>();
  for (const line of text.split(/\r?\n/).slice(1)) {
    const parts = line.trim().split(/\s+/);
    if (parts.length !== 12) continue;
    const [dim, tag, mass, cx, cy, cz, ...box] = parts.map(Number);
    measures.set(`${dim}:${tag}`, {
      mass: withMass ? mass : null,
      centroid: withMass ? [cx, cy, cz] : null,
      box: [
        [box[0], box[1], box[2]],
        [box[3], box[4], box[5]],
      ],
    });
  }
  return measures;
}

function describeGroup(
  group: PhysicalGroup,
  model: ModelEntities,
  measures: Map<string, EntityMeasure>,
  occ: boolean,
): MeasureOutput['physical_groups'][number] {
  if (group.dim === 0) {
    const points = group.entities.map((tag) => model.points.get(tag)).filter((point): point is Vec3 => point !== undefined);
    return { name: group.name, dimension: 0, entities: group.entities, measure: null, centroid: points.length ? mean(points) : null };
  }
  if (!occ) return { name: group.name, dimension: group.dim, entities: group.entities, measure: null, centroid: null };
  let mass = 0;
  const moment: Vec3 = [0, 0, 0];
  for (const tag of group.entities) {
    const entity = measures.get(`${group.dim}:${tag}`);
    if (!entity?.mass || !entity.centroid) continue;
    mass += entity.mass;
    entity.centroid.forEach((value, axis) => (moment[axis] += value * (entity.mass as number)));
  }
  return {
    name: group.name,
    dimension: group.dim,
    entities: group.entities,
    measure: mass,
    centroid: mass > 0 ? (moment.map((value) => value / mass) as Vec3) : null,
  };
}

/**
 * The CAD bounding box of the top-dimension entities. OpenCASCADE enlarges boxes by its tolerance (1e-7), so a
 * side that lies within that (plus 1e-6 of the model size) of the extreme vertex is taken at the vertex, exactly.
 */
function boundingBox(model: ModelEntities, measures: Map<string, EntityMeasure>, topDim: number): MeasureOutput['bounding_box'] {
  const points = [...model.points.values()];
  const vertexMin = [0, 1, 2].map((axis) => Math.min(...points.map((point) => point[axis])));
  const vertexMax = [0, 1, 2].map((axis) => Math.max(...points.map((point) => point[axis])));
  let min = [...vertexMin];
  let max = [...vertexMax];
  if (topDim > 0) {
    const boxes = model.tags[topDim].flatMap((tag) => {
      const box = measures.get(`${topDim}:${tag}`)?.box;
      return box ? [box] : [];
    });
    if (boxes.length > 0) {
      min = [0, 1, 2].map((axis) => Math.min(...boxes.map((box) => box[0][axis])));
      max = [0, 1, 2].map((axis) => Math.max(...boxes.map((box) => box[1][axis])));
    }
  }
  const diagonal = Math.hypot(...[0, 1, 2].map((axis) => max[axis] - min[axis]));
  const tolerance = 1e-6 * diagonal + 1.5e-7;
  for (let axis = 0; axis < 3; axis++) {
    if (points.length && Math.abs(min[axis] - vertexMin[axis]) <= tolerance) min[axis] = vertexMin[axis];
    if (points.length && Math.abs(max[axis] - vertexMax[axis]) <= tolerance) max[axis] = vertexMax[axis];
  }
  return { min, max, size: [0, 1, 2].map((axis) => max[axis] - min[axis]) };
}

function distanceBetween(from: string, to: string, groups: MeasureOutput['physical_groups']): MeasureOutput['distances'][number] {
  const a = findGroup(from, groups);
  const b = findGroup(to, groups);
  if (!a.centroid || !b.centroid) {
    throw inputRejected(
      `distance ${from} → ${to}: centroids of curves, surfaces and volumes need the OpenCASCADE kernel (SetFactory("OpenCASCADE"))`,
    );
  }
  const delta = [0, 1, 2].map((axis) => (b.centroid as number[])[axis] - (a.centroid as number[])[axis]);
  return {
    from,
    to,
    kind: a.dimension === 0 && b.dimension === 0 ? 'point_to_point' : 'centroid_to_centroid',
    distance: Math.hypot(...delta),
    delta,
  };
}

function findGroup(name: string, groups: MeasureOutput['physical_groups']): MeasureOutput['physical_groups'][number] {
  const matches = groups.filter((group) => group.name === name);
  const candidates = matches.length > 0 ? matches : groups.filter((group) => group.name.toLowerCase() === name.toLowerCase());
  if (candidates.length === 0) {
    throw inputRejected(
      `'${name}' is not a physical group of the model (groups: ${groups.map((group) => group.name).join(', ') || 'none'})`,
    );
  }
  return candidates.reduce((best, group) => (group.dimension < best.dimension ? group : best));
}

function mean(points: Vec3[]): Vec3 {
  return [0, 1, 2].map((axis) => points.reduce((sum, point) => sum + point[axis], 0) / points.length) as Vec3;
}
