import { z } from '@skill-registry/sdk';

export const MeshOptions = z
  .object({
    size_max: z.number().positive().optional().describe('Largest element size, in model length units (gmsh -clmax)'),
    size_min: z
      .number()
      .positive()
      .optional()
      .describe('Smallest element size, in model length units (gmsh -clmin); set it with size_max for a uniform size'),
    size_factor: z.number().positive().optional().describe('Factor applied to every element size, dimensionless (gmsh -clscale)'),
    element_order: z
      .union([z.literal(1), z.literal(2)])
      .optional()
      .describe('1: linear tetrahedra C3D4 (default); 2: quadratic tetrahedra C3D10, better for bending and stress peaks'),
    algorithm: z.enum(['delaunay', 'frontal', 'hxt']).optional().describe('3-D meshing algorithm (default delaunay)'),
    optimize: z.boolean().optional().describe('Improve tetrahedron quality after meshing (gmsh -optimize)'),
  })
  .strict();

export const ExportMeshInput = z
  .object({
    geo: z
      .string()
      .min(1)
      .optional()
      .describe(
        'gmsh .geo script of the part (lengths in model units) with at least one Physical Volume; Physical Surfaces and Points ' +
          'become surfaces and node sets for loads and supports. Start with SetFactory("OpenCASCADE"); it may Merge "model.step". ' +
          'Give geo, step, or both, or else geometry_work_product_id',
      ),
    step: z
      .string()
      .min(1)
      .optional()
      .describe('STEP file contents (ISO 10303-21 text), written as model.step; used alone it is meshed as one body'),
    geometry_work_product_id: z
      .uuid()
      .optional()
      .describe(
        "ID of a cad_model work product on the caller's branch to mesh instead of inline geo/step: a gmsh .geo script " +
          '(media type text/x-gmsh-geo) or a STEP file (model/step), or another media type with metadata.format "geo" or "step"',
      ),
    mesh_work_product_id: z
      .uuid()
      .optional()
      .describe(
        "ID of a mesh work product on the caller's branch to write the mesh to as a new revision; default: the mesh of the same " +
          'geometry and mesh_name on the branch, else a new mesh work product',
      ),
    mesh_name: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Name of the mesh work product (default: the geometry work product\'s name + " mesh", or "mesh" for inline geometry)'),
    mesh: MeshOptions.optional().describe('Mesh size and element options (default: gmsh defaults, linear tetrahedra)'),
    max_elements: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Flag the mesh when it has more elements than this (e.g. a solver or licence budget); no limit by default'),
    expected_volume: z
      .number()
      .positive()
      .optional()
      .describe('Volume of the part in model length units^3 (e.g. from check_tolerances); the mesh volume is compared with it'),
    volume_rel_tol: z
      .number()
      .positive()
      .max(1)
      .default(0.01)
      .describe('Allowed relative difference between mesh volume and expected_volume, as a fraction (default 0.01 = 1 %)'),
  })
  .strict();

export const SanityCheck = z.object({
  name: z
    .enum(['counts_consistent', 'no_inverted_elements', 'within_max_elements', 'volume_matches'])
    .describe(
      'counts_consistent: the .inp holds the node and element counts reported; no_inverted_elements: every element has a positive ' +
        'volume; within_max_elements: element_count <= max_elements; volume_matches: mesh volume within volume_rel_tol of expected_volume',
    ),
  passed: z.boolean().describe('Whether the check passed'),
  message: z.string().describe('What was found, with the numbers'),
});

export const ExportMeshOutput = z.object({
  mesh_work_product_id: z.uuid().describe("ID of the mesh work product holding this mesh on the caller's branch (kind mesh)"),
  mesh_revision: z
    .number()
    .int()
    .describe('Revision of the mesh work product holding this mesh (the current one when the same mesh was written before)'),
  inp: z
    .string()
    .describe(
      'CalculiX-ready mesh (.inp text): *NODE, solid *ELEMENT blocks, an *ELSET per Physical Volume plus EALL, an *NSET per ' +
        'physical group and an element-face *SURFACE per Physical Surface. *INCLUDE it in a deck (e.g. validate_stress include_files)',
    ),
  node_count: z.number().int().describe('Number of nodes'),
  element_count: z.number().int().describe('Number of solid elements'),
  element_types: z
    .array(
      z.object({
        type: z.string().describe('CalculiX element type, e.g. C3D4 or C3D10'),
        count: z.number().int().describe('Elements of that type'),
      }),
    )
    .describe('Solid element types in the mesh with their counts'),
  element_sets: z
    .array(z.object({ name: z.string().describe('Element set name'), element_count: z.number().int().describe('Elements in the set') }))
    .describe('Element sets (*ELSET): one per Physical Volume, gmsh per-entity sets (VolumeN) and EALL'),
  node_sets: z
    .array(z.object({ name: z.string().describe('Node set name'), node_count: z.number().int().describe('Nodes in the set') }))
    .describe('Node sets (*NSET): NALL and one per physical group, for *BOUNDARY and *CLOAD'),
  surfaces: z
    .array(z.object({ name: z.string().describe('Surface name'), face_count: z.number().int().describe('Element faces in the surface') }))
    .describe('Element-face surfaces (*SURFACE), one per Physical Surface, for *DSLOAD pressures and contact'),
  mesh_volume: z
    .number()
    .nullable()
    .describe(
      'Sum of the element volumes in model length units^3 from the corner nodes (straight-edged), 10 significant digits; ' +
        'null when the mesh has element types without a volume rule here',
    ),
  smallest_element_volume: z
    .number()
    .nullable()
    .describe('Smallest element volume in model length units^3 (10 significant digits); null when mesh_volume is null'),
  dropped_elements: z.number().int().describe('Surface, line and point elements gmsh wrote that were left out of the solid mesh'),
  passed: z.boolean().describe('Whether every sanity check passed'),
  checks: z
    .array(SanityCheck)
    .describe('Sanity checks of the mesh, in a fixed order (within_max_elements and volume_matches only when asked for)'),
  warnings: z.array(z.string().describe('One warning')).describe('Warnings gmsh printed'),
});

export type MeshOptions = z.infer<typeof MeshOptions>;
export type ExportMeshInput = z.infer<typeof ExportMeshInput>;
export type SanityCheck = z.infer<typeof SanityCheck>;
export type ExportMeshOutput = z.infer<typeof ExportMeshOutput>;
