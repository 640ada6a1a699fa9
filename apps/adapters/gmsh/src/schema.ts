import * as z from 'zod';

const geometry = {
  geo: z
    .string()
    .min(1)
    .optional()
    .describe(
      'gmsh .geo script of the model (lengths in model units). Start it with SetFactory("OpenCASCADE") for exact volumes and ' +
        'areas; it may Merge "model.step". Give geo, step, or both',
    ),
  step: z
    .string()
    .min(1)
    .optional()
    .describe('STEP file contents (ISO 10303-21 text), written as model.step; loaded with OpenCASCADE when no geo is given'),
};
const timeoutSeconds = z
  .number()
  .positive()
  .max(86_400)
  .optional()
  .describe('Time limit for gmsh in seconds (capped by the adapter limit)');
const vector = z.array(z.number()).length(3).describe('[x, y, z] in model length units');

export const exportMeshInputSchema = z.object({
  ...geometry,
  mesh: z
    .object({
      size_max: z.number().positive().optional().describe('Largest element size, in model length units (gmsh -clmax)'),
      size_min: z.number().positive().optional().describe('Smallest element size, in model length units (gmsh -clmin)'),
      size_factor: z.number().positive().optional().describe('Factor applied to all element sizes (gmsh -clscale)'),
      element_order: z
        .union([z.literal(1), z.literal(2)])
        .optional()
        .describe('1: linear elements (C3D4, C3D8), 2: quadratic (C3D10, C3D20); default 1'),
      algorithm: z.enum(['delaunay', 'frontal', 'hxt']).optional().describe('3-D meshing algorithm (default delaunay)'),
      optimize: z.boolean().optional().describe('Optimise tetrahedron quality after meshing (gmsh -optimize)'),
    })
    .optional()
    .describe('Mesh size and element options'),
  timeout_seconds: timeoutSeconds,
});
export type ExportMeshInput = z.infer<typeof exportMeshInputSchema>;

export const exportMeshOutputSchema = z.object({
  inp: z
    .string()
    .describe(
      'CalculiX-ready mesh (.inp text): *NODE, solid *ELEMENT blocks, *ELSET per physical volume plus EALL, *NSET per physical ' +
        'group, *SURFACE (element faces) per physical surface; add materials, sections, boundary conditions and steps',
    ),
  node_count: z.number().int().describe('Number of nodes'),
  element_count: z.number().int().describe('Number of solid elements'),
  element_types: z.record(z.string(), z.number().int()).describe('Element type (C3D4, C3D10, ...) → count'),
  element_sets: z
    .array(z.object({ name: z.string().describe('Set name'), element_count: z.number().int().describe('Elements') }))
    .describe('Element sets'),
  node_sets: z
    .array(z.object({ name: z.string().describe('Set name'), node_count: z.number().int().describe('Nodes') }))
    .describe('Node sets'),
  surfaces: z
    .array(
      z.object({ name: z.string().describe('Surface name (physical surface)'), face_count: z.number().int().describe('Element faces') }),
    )
    .describe('Element-face surfaces for *DSLOAD and contact'),
  dropped_elements: z
    .number()
    .int()
    .describe('Lower-dimensional elements gmsh wrote that were left out (their groups became node sets and surfaces)'),
  gmsh_version: z.string().nullable().describe('gmsh version that meshed the model'),
  warnings: z.array(z.string()).describe('Warnings gmsh printed'),
});
export type ExportMeshOutput = z.infer<typeof exportMeshOutputSchema>;

export const measureInputSchema = z.object({
  ...geometry,
  distances: z
    .array(
      z.object({
        from: z.string().describe('Name of a physical group (a Physical Point for an exact position; otherwise its centroid is used)'),
        to: z.string().describe('Name of the other physical group'),
      }),
    )
    .max(200)
    .optional()
    .describe('Distances to measure between named physical groups, e.g. for tolerance checks'),
  timeout_seconds: timeoutSeconds,
});

export const measureOutputSchema = z.object({
  bounding_box: z
    .object({ min: vector, max: vector, size: vector.describe('max - min per axis') })
    .describe('Axis-aligned bounding box of the model (exact where the extremes are vertices; else the CAD box)'),
  volume: z.number().nullable().describe('Total volume of all volumes, in model units³ (null without OpenCASCADE)'),
  surface_area: z.number().nullable().describe('Total area of all surfaces, in model units² (null without OpenCASCADE)'),
  volumes: z.record(z.string(), z.number()).describe('Physical volume name → volume'),
  surface_areas: z.record(z.string(), z.number()).describe('Physical surface name → area'),
  curve_lengths: z.record(z.string(), z.number()).describe('Physical curve name → length'),
  physical_groups: z
    .array(
      z.object({
        name: z.string().describe('Physical group name'),
        dimension: z.number().int().describe('0 point, 1 curve, 2 surface, 3 volume'),
        entities: z.array(z.number().int()).describe('Entity tags in the group'),
        measure: z.number().nullable().describe('Length, area or volume of the group (null for points, or without OpenCASCADE)'),
        centroid: vector.nullable().describe('Centroid (points: their mean position); null without OpenCASCADE'),
      }),
    )
    .describe('Every physical group with its size and centroid'),
  distances: z
    .array(
      z.object({
        from: z.string().describe('First group'),
        to: z.string().describe('Second group'),
        kind: z.enum(['point_to_point', 'centroid_to_centroid']).describe('Between exact points, or between centroids'),
        distance: z.number().describe('Euclidean distance in model length units'),
        delta: vector.describe('to - from per axis'),
      }),
    )
    .describe('Requested distances'),
  entity_counts: z
    .object({
      points: z.number().int().describe('Points'),
      curves: z.number().int().describe('Curves'),
      surfaces: z.number().int().describe('Surfaces'),
      volumes: z.number().int().describe('Volumes'),
    })
    .describe('Number of model entities per dimension'),
  kernel: z.enum(['opencascade', 'built-in']).describe('Geometry kernel of the model (volumes and areas need OpenCASCADE)'),
  gmsh_version: z.string().nullable().describe('gmsh version that measured the model'),
  warnings: z.array(z.string()).describe('Warnings (gmsh messages, and what could not be measured)'),
});
export type MeasureOutput = z.infer<typeof measureOutputSchema>;
