import { z } from '@skill-registry/sdk';

/** A relative file name next to the deck: what *INCLUDE, INPUT=<name> reads (the adapter refuses anything else). */
const includeName = z.string().min(1);

/** A file the deck pulls in with *INCLUDE (a set or material library; the mesh comes from the work product). */
export const IncludeFile = z
  .object({
    name: includeName.describe(
      'Relative file name the deck reads with *INCLUDE, INPUT=<name> (e.g. "materials.inp"); no absolute paths, no ".."',
    ),
    content: z.string().describe('Contents of the file (CalculiX .inp text)'),
  })
  .strict();

/** A constraint on allowable stress values (seed: StressConstraint). */
export const StressConstraint = z
  .object({
    max_von_mises_mpa: z
      .number()
      .positive()
      .describe('Maximum allowable von Mises stress of the material in MPa, e.g. its yield strength (235 for S235 steel)'),
    safety_factor: z
      .number()
      .min(1)
      .default(1.5)
      .describe('Required safety factor, dimensionless, >= 1 (default 1.5): the allowable stress is max_von_mises_mpa / safety_factor'),
    material: z.string().min(1).describe('Material name the limit belongs to (e.g. "steel_s235"), reported with each result'),
  })
  .strict();

export const ValidateStressInput = z
  .object({
    work_product_id: z
      .uuid()
      .describe(
        "ID of the mesh (or model) work product on the caller's branch, e.g. the mesh_work_product_id of export_mesh: " +
          'CalculiX input (text/x-calculix-inp) with *NODE, *ELEMENT and the sets, written next to the deck as mesh_include_name',
      ),
    load_case: z
      .string()
      .min(1)
      .describe(
        'Load case identifier (e.g. "static_load_1"); the loads themselves are the *CLOAD/*DLOAD/*DSLOAD cards of deck_inp. ' +
          'The result is kept per (work product, load case) on the branch',
      ),
    deck_inp: z
      .string()
      .min(1)
      .describe(
        "CalculiX input deck (.inp text) of the load case: *INCLUDE, INPUT=<mesh_include_name> for the work product's mesh, " +
          '*MATERIAL, *SOLID SECTION, *BOUNDARY and a *STATIC step with its loads. Each element set is a region that is checked',
      ),
    mesh_include_name: includeName
      .max(100)
      .default('mesh.inp')
      .describe('File name the work product\'s content is written under next to the deck (default "mesh.inp"); no absolute paths, no ".."'),
    include_files: z
      .array(IncludeFile)
      .max(50)
      .optional()
      .describe('Further files the deck includes (e.g. a material library), written next to the deck'),
    unit_system: z
      .enum(['N-mm', 'N-m'])
      .default('N-mm')
      .describe('Units of the deck: "N-mm" (default; stresses come out in MPa) or "N-m" (SI; stresses in Pa are converted to MPa)'),
    regions: z
      .array(z.string().min(1).describe('Element set name (case-insensitive)'))
      .min(1)
      .max(200)
      .optional()
      .describe('Element sets to check; default every element set of the deck'),
    constraints: z
      .array(StressConstraint)
      .min(1)
      .optional()
      .describe(
        'Stress constraints to validate against; every constraint is checked against every region. Default: the work ' +
          "product's max_von_mises_stress constraints on the branch",
      ),
  })
  .strict();

/** Result of one (constraint, region) check (seed: StressResult). */
export const StressResult = z.object({
  region: z.string().describe('Region: element set name as CalculiX reports it (upper case)'),
  constraint_index: z
    .number()
    .int()
    .describe("Index of the constraint in the constraints checked (0-based): the input constraints, else the work product's"),
  material: z.string().describe('Material of the constraint'),
  max_von_mises_mpa: z.number().describe('Largest nodal von Mises stress found in the region, in MPa'),
  allowable_mpa: z.number().describe('Allowable stress for this check in MPa: max_von_mises_mpa of the constraint / safety_factor'),
  safety_factor_required: z.number().describe('Safety factor the constraint requires, dimensionless'),
  safety_factor_achieved: z
    .number()
    .nullable()
    .describe(
      'Actual safety factor, dimensionless: max_von_mises_mpa of the constraint / region stress. ' +
        'null when the region stress is 0 (the safety factor is infinite, which JSON cannot carry)',
    ),
  passed: z.boolean().describe('Whether the region stress is <= allowable_mpa'),
});

export const ValidateStressOutput = z.object({
  work_product_id: z.uuid().describe('ID of the analysed work product (as given)'),
  source_revision: z.number().int().describe('Revision of the work product that was analysed (current on the branch when it ran)'),
  result_work_product_id: z
    .uuid()
    .describe("ID of the simulation_result work product holding this result on the caller's branch (one per work product and load case)"),
  result_revision: z.number().int().describe('Revision of the result work product written by this run (the current one when unchanged)'),
  constraints_source: z
    .enum(['input', 'twin'])
    .describe("Where the checked constraints came from: the input, or the work product's constraints in the twin"),
  load_case: z.string().describe('Load case identifier (as given)'),
  overall_passed: z.boolean().describe('Whether every (constraint, region) check passed'),
  results: z
    .array(StressResult)
    .describe('One result per (constraint, region): constraints in input order, regions in deck order within each'),
  max_stress_mpa: z
    .number()
    .describe('Global maximum von Mises stress over the checked regions, in MPa (0 when every region is unstressed)'),
  critical_region: z
    .string()
    .describe('Region with the highest stress (the first one on ties); empty string when every region is unstressed'),
  solver_time_seconds: z.number().describe('FEA solver execution time in seconds (CalculiX)'),
  mesh_elements: z.number().int().describe('Number of mesh elements used'),
  mesh_nodes: z.number().int().nullable().describe('Number of mesh nodes used; null when the tool did not report it'),
  max_displacement_mm: z
    .number()
    .nullable()
    .describe('Largest displacement magnitude of the model in mm (converted from m for N-m decks); null when the tool did not report it'),
  warnings: z.array(z.string().describe('One warning CalculiX printed')).describe('Warnings CalculiX printed (empty when none)'),
});

export type IncludeFile = z.infer<typeof IncludeFile>;
export type StressConstraint = z.infer<typeof StressConstraint>;
export type ValidateStressInput = z.infer<typeof ValidateStressInput>;
export type StressResult = z.infer<typeof StressResult>;
export type ValidateStressOutput = z.infer<typeof ValidateStressOutput>;
