import * as z from 'zod';

const includeFiles = z
  .array(
    z.object({
      name: z.string().describe('Relative file name the deck reads with *INCLUDE, INPUT=<name> (no absolute paths, no ..)'),
      content: z.string().describe('File contents'),
    }),
  )
  .max(50)
  .optional()
  .describe('Files the deck includes (mesh, sets, materials), written next to it in the scratch directory');

const deck = z
  .string()
  .min(1)
  .describe('CalculiX input deck (.inp contents): mesh or *INCLUDE of include_files, materials, sections, boundary conditions, steps');

const timeoutSeconds = z.number().positive().max(86_400).optional().describe('Time limit for ccx in seconds (capped by the adapter limit)');

const point = z.array(z.number()).length(3).describe('Node coordinates [x, y, z] in the length unit of the model');
const extreme = z.object({
  value: z.number().describe('Extreme value'),
  node: z.number().int().describe('Node where it occurs'),
  location: point,
});
const range = z.object({ min: z.number().describe('Smallest value'), max: z.number().describe('Largest value') });
const mesh = {
  mesh_elements: z.number().int().describe('Number of elements in the results'),
  mesh_nodes: z.number().int().describe('Number of nodes in the results'),
  element_types: z.record(z.string(), z.number().int()).describe('Element type (C3D8I, C3D10, ...) → number of elements'),
};
const run = {
  solver_time: z.number().describe('CalculiX run time in seconds (its own "Total CalculiX Time", else wall clock)'),
  result_time: z.number().describe('Step time of the reported increment (the last one)'),
  warnings: z.array(z.string()).describe('Warnings CalculiX printed'),
  calculix_version: z.string().nullable().describe('CalculiX version that ran the analysis'),
};

export const runFeaInputSchema = z.object({
  deck,
  include_files: includeFiles,
  unit_system: z
    .enum(['N-mm', 'N-m', 'other'])
    .optional()
    .describe(
      "Units of the model: 'N-mm' (default; stresses come out in MPa), 'N-m' (stresses in Pa, converted to MPa), " +
        "'other' (stresses reported unconverted, stress_unit 'model units')",
    ),
  regions: z
    .array(z.string().min(1))
    .max(200)
    .optional()
    .describe('Element sets (*ELSET / *ELEMENT ELSET=) to report max von Mises for; default every element set of the deck'),
  timeout_seconds: timeoutSeconds,
});

export const runFeaOutputSchema = z.object({
  max_von_mises: z
    .record(z.string(), z.number())
    .describe('Region (element set) → largest nodal von Mises stress of its nodes, in stress_unit (MPa unless unit_system is other)'),
  regions: z
    .array(
      z.object({
        name: z.string().describe('Element set name (upper case, as CalculiX names it)'),
        max_von_mises: z.number().describe('Largest nodal von Mises stress in the set, in stress_unit'),
        node: z.number().int().describe('Node where it occurs'),
        location: point,
        element_count: z.number().int().describe('Elements in the set'),
      }),
    )
    .describe('Per-region details of max_von_mises'),
  max_von_mises_overall: extreme.describe('Largest nodal von Mises stress of the whole model, in stress_unit'),
  displacement: z
    .object({
      max_magnitude: extreme.describe('Largest displacement magnitude, in length_unit'),
      x: range.describe('Extremes of the x component, in length_unit'),
      y: range.describe('Extremes of the y component, in length_unit'),
      z: range.describe('Extremes of the z component, in length_unit'),
    })
    .describe('Displacement extremes at the last increment'),
  stress_unit: z.string().describe("'MPa', or 'model units' when unit_system is other"),
  length_unit: z.string().describe("'mm', 'm', or 'model units'"),
  ...mesh,
  ...run,
});
export type RunFeaOutput = z.infer<typeof runFeaOutputSchema>;

export const runThermalInputSchema = z.object({
  deck: deck.describe(
    'CalculiX heat transfer deck (.inp contents) with a *HEAT TRANSFER step (STEADY STATE, or transient with time increments)',
  ),
  include_files: includeFiles,
  timeout_seconds: timeoutSeconds,
});

const temperatureStats = {
  min: z.number().describe('Lowest nodal temperature'),
  max: z.number().describe('Highest nodal temperature'),
  mean: z.number().describe('Arithmetic mean of the nodal temperatures (not volume-weighted)'),
};

export const runThermalOutputSchema = z.object({
  temperature: z.object(temperatureStats).describe('Temperature field summary at the last increment, in the temperature unit of the deck'),
  hottest_node: extreme.describe('Node with the highest temperature'),
  coldest_node: extreme.describe('Node with the lowest temperature'),
  max_temperature_by_set: z.record(z.string(), z.number()).describe('Node set (*NSET / *NODE NSET=) → highest temperature of its nodes'),
  sets: z
    .array(
      z.object({
        name: z.string().describe('Set name (upper case)'),
        kind: z.enum(['node_set', 'element_set']).describe('Node set, or element set (taken over the nodes of its elements)'),
        node_count: z.number().int().describe('Nodes with a result in the set'),
        ...temperatureStats,
      }),
    )
    .describe('Temperature summary per node set and element set'),
  transient: z.boolean().describe('Whether the heat transfer step is transient (else steady state)'),
  history: z
    .array(z.object({ time: z.number().describe('Step time of the increment'), ...temperatureStats }))
    .describe('Summary per written increment (one entry for steady state; at most 1000, evenly thinned)'),
  temperature_unit: z.string().describe('Temperatures are in the unit the deck uses (CalculiX does not convert)'),
  ...mesh,
  ...run,
});
export type RunThermalOutput = z.infer<typeof runThermalOutputSchema>;
