import { z } from '@skill-registry/sdk';

export const IncludeFile = z
  .object({
    name: z
      .string()
      .min(1)
      .describe('Relative file name the deck reads with *INCLUDE, INPUT=<name> (e.g. "mesh.inp"); no absolute paths, no ".."'),
    content: z.string().describe('Contents of the file (CalculiX .inp text)'),
  })
  .strict();

export const TemperatureLimit = z
  .object({
    set: z
      .string()
      .min(1)
      .optional()
      .describe('Node set (*NSET) or element set (*ELSET) the limit applies to, case-insensitive; omit it for the whole model'),
    max_allowed: z
      .number()
      .optional()
      .describe('Highest allowed temperature in the set, in temperature_unit (e.g. 85 for a component rating)'),
    min_allowed: z.number().optional().describe('Lowest allowed temperature in the set, in temperature_unit (e.g. -40)'),
  })
  .strict();

export const RunThermalInput = z
  .object({
    deck_inp: z
      .string()
      .min(1)
      .describe(
        'CalculiX heat transfer deck (.inp text): mesh (or *INCLUDE of include_files) with node/element sets, *MATERIAL with ' +
          '*CONDUCTIVITY (plus *DENSITY and *SPECIFIC HEAT for transient), *SOLID SECTION, and a *HEAT TRANSFER step (STEADY STATE, ' +
          'or transient with time increments) with temperatures (*BOUNDARY dof 11), fluxes (*CFLUX/*DFLUX) or convection (*FILM)',
      ),
    include_files: z
      .array(IncludeFile)
      .max(50)
      .optional()
      .describe('Files the deck includes (e.g. a mesh given as text), written next to the deck'),
    work_product_id: z
      .uuid()
      .optional()
      .describe(
        "ID of a mesh (or model) work product on the caller's branch, e.g. export_mesh's mesh_work_product_id: CalculiX input " +
          'written next to the deck as mesh_include_name. With it, the result is written back as a simulation_result',
      ),
    mesh_include_name: z
      .string()
      .min(1)
      .max(100)
      .default('mesh.inp')
      .describe('File name the work product\'s content is written under next to the deck (default "mesh.inp"); no absolute paths, no ".."'),
    load_case: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Label of the thermal load case; with work_product_id the result is kept per (work product, load case) on the branch'),
    temperature_unit: z
      .string()
      .min(1)
      .max(20)
      .default('degC')
      .describe('Temperature unit the deck uses (default "degC"; CalculiX does not convert); a label for the outputs'),
    limits: z
      .array(TemperatureLimit)
      .max(200)
      .default([])
      .describe(
        'Temperature limits to check (each with max_allowed and/or min_allowed). None by default; with work_product_id, ' +
          "the work product's max_temperature constraints (degC) when none are given",
      ),
  })
  .strict();

const location = z.array(z.number()).describe('Node coordinates [x, y, z] in the length unit of the deck');

export const NodeTemperature = z.object({
  node: z.number().int().describe('Node number'),
  temperature: z.number().describe('Temperature of the node, in temperature_unit'),
  location,
});

export const SetTemperature = z.object({
  name: z.string().describe('Set name (upper case, as CalculiX names sets)'),
  kind: z.enum(['node_set', 'element_set']).describe('Node set, or element set (taken over the nodes of its elements)'),
  node_count: z.number().int().describe('Nodes with a temperature in the set'),
  min: z.number().describe('Lowest temperature in the set at the last increment, in temperature_unit'),
  max: z.number().describe('Highest temperature in the set at the last increment, in temperature_unit'),
  mean: z.number().describe('Arithmetic mean of the nodal temperatures of the set (not volume-weighted), in temperature_unit'),
});

export const LimitResult = z.object({
  set: z.string().nullable().describe('Set as given; null for the whole model'),
  kind: z
    .enum(['model', 'node_set', 'element_set'])
    .nullable()
    .describe('What the limit was checked on; null when the set does not exist in the results'),
  max_allowed: z.number().nullable().describe('Highest allowed temperature, in temperature_unit; null when not given'),
  min_allowed: z.number().nullable().describe('Lowest allowed temperature, in temperature_unit; null when not given'),
  max_temperature: z
    .number()
    .nullable()
    .describe('Highest temperature found (set: last increment; whole model: over every written increment), in temperature_unit'),
  min_temperature: z
    .number()
    .nullable()
    .describe('Lowest temperature found (set: last increment; whole model: over every written increment), in temperature_unit'),
  margin: z
    .number()
    .nullable()
    .describe(
      'Smallest distance to a limit in temperature_unit (max_allowed - max_temperature, min_temperature - min_allowed); negative when violated',
    ),
  status: z
    .enum(['pass', 'fail', 'set_not_found'])
    .describe('pass: within the limits; fail: a limit is exceeded; set_not_found: no such set'),
  passed: z.boolean().describe('Whether status is pass'),
  message: z.string().describe('One-line verdict with the numbers'),
});

export const RunThermalOutput = z.object({
  passed: z.boolean().describe('Whether every limit passed (true when no limits were given)'),
  limits_source: z
    .enum(['input', 'twin', 'none'])
    .describe("Where the checked limits came from: the input, the work product's max_temperature constraints, or none at all"),
  source_work_product_id: z.uuid().nullable().describe('The analysed work product (work_product_id); null when the deck came inline'),
  source_revision: z.number().int().nullable().describe('Revision of the analysed work product; null without work_product_id'),
  result_work_product_id: z
    .uuid()
    .nullable()
    .describe("The simulation_result work product holding this result on the caller's branch; null without work_product_id"),
  result_revision: z
    .number()
    .int()
    .nullable()
    .describe('Revision of the result work product written by this run; null without work_product_id'),
  transient: z.boolean().describe('Whether the heat transfer step is transient (else steady state)'),
  temperature_unit: z.string().describe('Temperature unit of every temperature in the output (the deck unit, as given)'),
  max_temperature: z.number().describe('Highest nodal temperature at the last increment, in temperature_unit'),
  min_temperature: z.number().describe('Lowest nodal temperature at the last increment, in temperature_unit'),
  mean_temperature: z
    .number()
    .describe('Arithmetic mean of the nodal temperatures at the last increment (not volume-weighted), in temperature_unit'),
  peak_temperature: z.number().describe('Highest nodal temperature over every written increment, in temperature_unit'),
  peak_time: z.number().describe('Step time of the increment with the peak temperature, in the time unit of the deck (s for SI decks)'),
  hottest_node: NodeTemperature.describe('Node with the highest temperature at the last increment'),
  coldest_node: NodeTemperature.describe('Node with the lowest temperature at the last increment'),
  sets: z.array(SetTemperature).describe('Temperature summary per node set and element set at the last increment'),
  limits: z.array(LimitResult).describe('One result per limit, in input order'),
  history: z
    .array(
      z.object({
        time: z.number().describe('Step time of the increment, in the time unit of the deck'),
        min: z.number().describe('Lowest nodal temperature, in temperature_unit'),
        max: z.number().describe('Highest nodal temperature, in temperature_unit'),
        mean: z.number().describe('Mean nodal temperature, in temperature_unit'),
      }),
    )
    .describe('Temperature summary per written increment (one entry for steady state; at most 1000)'),
  solver_time_seconds: z.number().describe('CalculiX run time in seconds'),
  mesh_elements: z.number().int().describe('Number of elements'),
  mesh_nodes: z.number().int().describe('Number of nodes'),
  warnings: z.array(z.string().describe('One warning')).describe('Warnings CalculiX printed'),
});

export type IncludeFile = z.infer<typeof IncludeFile>;
export type TemperatureLimit = z.infer<typeof TemperatureLimit>;
export type RunThermalInput = z.infer<typeof RunThermalInput>;
export type SetTemperature = z.infer<typeof SetTemperature>;
export type LimitResult = z.infer<typeof LimitResult>;
export type RunThermalOutput = z.infer<typeof RunThermalOutput>;
