import { z } from '@skill-registry/sdk';

const axis = z.enum(['x', 'y', 'z']);

/** Fields every tolerance check has: what is expected and how far the part may deviate. */
const toleranceFields = {
  name: z
    .string()
    .min(1)
    .max(100)
    .describe('Name of the check, unique within the call (e.g. "overall_length" or the drawing balloon "D4")'),
  nominal: z
    .number()
    .describe('Nominal value from the drawing or spec: a length in length_unit, an area in length_unit^2 or a volume in length_unit^3'),
  tolerance_plus: z
    .number()
    .nonnegative()
    .describe('Upper tolerance (the "+" of ±), same unit as nominal: the measured value may exceed nominal by at most this much'),
  tolerance_minus: z
    .number()
    .nonnegative()
    .optional()
    .describe('Lower tolerance (the "-" of ±, given as a positive number), same unit as nominal; default tolerance_plus (symmetric ±)'),
};

export const BoundingBoxCheck = z
  .object({
    kind: z.literal('bounding_box').describe('Overall size of the part along one axis (axis-aligned bounding box extent), a length'),
    axis: axis.describe('Axis of the extent: x, y or z'),
    ...toleranceFields,
  })
  .strict();

export const DistanceCheck = z
  .object({
    kind: z
      .literal('distance')
      .describe('Distance between two named physical groups, a length: exact between Physical Points, else between centroids'),
    from: z.string().min(1).describe('Name of the first physical group (a Physical Point gives an exact position)'),
    to: z.string().min(1).describe('Name of the second physical group'),
    axis: axis
      .optional()
      .describe('Measure only the component along this axis (absolute value of to - from); default the straight-line distance'),
    ...toleranceFields,
  })
  .strict();

export const VolumeCheck = z
  .object({
    kind: z.literal('volume').describe('Volume of the whole part or of one Physical Volume, in length_unit^3 (needs OpenCASCADE)'),
    group: z.string().min(1).optional().describe('Name of a Physical Volume; default the total volume of the part'),
    ...toleranceFields,
  })
  .strict();

export const AreaCheck = z
  .object({
    kind: z.literal('area').describe('Area of the whole surface or of one Physical Surface, in length_unit^2 (needs OpenCASCADE)'),
    group: z.string().min(1).optional().describe('Name of a Physical Surface; default the total surface area of the part'),
    ...toleranceFields,
  })
  .strict();

export const LengthCheck = z
  .object({
    kind: z.literal('length').describe('Length of one Physical Curve (an edge, a hole circumference), in length_unit (needs OpenCASCADE)'),
    group: z.string().min(1).describe('Name of the Physical Curve'),
    ...toleranceFields,
  })
  .strict();

export const ToleranceCheck = z.discriminatedUnion('kind', [BoundingBoxCheck, DistanceCheck, VolumeCheck, AreaCheck, LengthCheck]);

export const CheckTolerancesInput = z
  .object({
    geo: z
      .string()
      .min(1)
      .optional()
      .describe(
        'gmsh .geo script of the part with its named features as physical groups (Physical Point/Curve/Surface/Volume). ' +
          'Start it with SetFactory("OpenCASCADE") for volumes, areas and lengths. It may Merge "model.step". Give geo, step, or both',
      ),
    step: z
      .string()
      .min(1)
      .optional()
      .describe('STEP file contents (ISO 10303-21 text) of the part, read as model.step; without geo only bounding_box checks apply'),
    length_unit: z
      .string()
      .min(1)
      .max(20)
      .default('mm')
      .describe('Length unit of the model (default "mm"); a label for the outputs, nothing is converted'),
    checks: z.array(ToleranceCheck).min(1).max(200).describe('Tolerance checks: a measured feature, its nominal value and its ± tolerance'),
  })
  .strict();

export const CheckResult = z.object({
  name: z.string().describe('Name of the check, as given'),
  kind: z.enum(['bounding_box', 'distance', 'volume', 'area', 'length']).describe('Kind of feature measured'),
  feature: z.string().describe('What was measured, in words (e.g. "distance origin -> far (between points)")'),
  unit: z.string().describe('Unit of nominal, limits, measured and deviation: length_unit, length_unit^2 or length_unit^3'),
  nominal: z.number().describe('Nominal value, in unit'),
  tolerance_plus: z.number().describe('Upper tolerance applied, in unit'),
  tolerance_minus: z.number().describe('Lower tolerance applied (positive number), in unit'),
  lower_limit: z.number().describe('nominal - tolerance_minus, in unit'),
  upper_limit: z.number().describe('nominal + tolerance_plus, in unit'),
  measured: z.number().nullable().describe('Measured value in unit, rounded to 10 significant digits; null when it could not be measured'),
  deviation: z.number().nullable().describe('measured - nominal in unit (10 significant digits); null when not measured'),
  status: z
    .enum(['pass', 'fail', 'not_measured'])
    .describe('pass: lower_limit <= measured <= upper_limit; fail: outside; not_measured: the feature could not be measured'),
  passed: z.boolean().describe('Whether status is pass'),
  message: z.string().describe('One-line verdict with the numbers'),
});

export const CheckTolerancesOutput = z.object({
  passed: z.boolean().describe('Whether every check passed (a check that could not be measured does not pass)'),
  checks_passed: z.number().int().describe('Number of checks within tolerance'),
  checks_failed: z.number().int().describe('Number of checks out of tolerance'),
  checks_not_measured: z.number().int().describe('Number of checks whose feature could not be measured'),
  failed_checks: z
    .array(z.string().describe('Name of a check that did not pass'))
    .describe('Checks that failed or were not measured, in input order'),
  checks: z.array(CheckResult).describe('One result per check, in input order'),
  length_unit: z.string().describe('Length unit of the model, as given'),
  bounding_box: z
    .object({
      min: z.array(z.number()).describe('[x, y, z] of the lowest corner, in length_unit'),
      max: z.array(z.number()).describe('[x, y, z] of the highest corner, in length_unit'),
      size: z.array(z.number()).describe('Extent along x, y and z (max - min), in length_unit'),
    })
    .describe('Axis-aligned bounding box of the part (10 significant digits)'),
  volume: z.number().nullable().describe('Total volume of the part in length_unit^3 (10 significant digits); null without OpenCASCADE'),
  kernel: z.enum(['opencascade', 'built-in']).describe('Geometry kernel gmsh used; volumes, areas and lengths need opencascade'),
  warnings: z.array(z.string().describe('One warning')).describe('Warnings from gmsh and about what could not be measured'),
});

export type ToleranceCheck = z.infer<typeof ToleranceCheck>;
export type CheckTolerancesInput = z.infer<typeof CheckTolerancesInput>;
export type CheckResult = z.infer<typeof CheckResult>;
export type CheckTolerancesOutput = z.infer<typeof CheckTolerancesOutput>;
