import { z } from '@skill-registry/sdk';

const RULE_ID = /^[a-z][a-z0-9_]*$/;

const ruleIds = (what: string) =>
  z
    .array(z.string().regex(RULE_ID).describe('KiCad DRC rule id in snake_case, e.g. clearance, track_width, silk_over_copper'))
    .max(100)
    .optional()
    .describe(what);

export const SheetFile = z
  .object({
    name: z
      .string()
      .min(1)
      .max(200)
      .describe("Relative file name exactly as the parent sheet's Sheetfile property gives it, e.g. power.kicad_sch"),
    content: z.string().min(1).describe('Text of the sub-sheet (.kicad_sch)'),
  })
  .strict();

export const DrcPolicy = z
  .object({
    treat_as_error: ruleIds(
      'Rule ids whose warnings count as errors, e.g. ["silk_over_copper", "courtyards_overlap"]. Excluded findings stay excluded',
    ),
    ignore: ruleIds('Rule ids to leave out of the verdict and the list, e.g. ["silk_edge_clearance"]; counted in ignored_count'),
    fail_on_warnings: z.boolean().optional().describe('Fail the check when any warning remains (default false: only errors fail)'),
    allow_unrouted: z
      .boolean()
      .optional()
      .describe('Count unrouted connections as warnings instead of errors, for a board still being routed (default false)'),
  })
  .strict();

export const RunDrcInput = z
  .object({
    board: z
      .string()
      .min(1)
      .describe(
        'Text of the board file (.kicad_pcb, KiCad 6 or later). The file content itself, not a path or a digital-twin id: this ' +
          'service has no digital twin. Footprints are embedded in the board',
      ),
    project: z
      .string()
      .optional()
      .describe(
        'Text of the KiCad project file (.kicad_pro, JSON) with the design rules, net classes and severities; KiCad defaults without it',
      ),
    custom_rules: z
      .string()
      .optional()
      .describe(
        'Text of the custom rules file (.kicad_dru), e.g. (version 1) (rule "hv" (condition "A.NetClass == \'HV\'") (constraint clearance (min 2mm)))',
      ),
    schematic: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Text of the root schematic (.kicad_sch): when given, the board is also checked for parity with it (missing or extra footprints, values, nets)',
      ),
    sheets: z
      .array(SheetFile)
      .max(200)
      .optional()
      .describe('Sub-sheets of a hierarchical schematic (only with schematic): every file a sheet symbol refers to must be given'),
    policy: DrcPolicy.optional().describe(
      'How to judge what KiCad reports; default: errors and unrouted connections fail, warnings do not',
    ),
  })
  .strict();

const position = {
  x_mm: z.number().nullable().describe('X on the board in millimetres from the board origin; null when KiCad gives no position'),
  y_mm: z.number().nullable().describe('Y on the board in millimetres, increasing downwards; null when KiCad gives no position'),
};

export const DrcItem = z.object({
  description: z
    .string()
    .describe('What KiCad says the item is, e.g. "Pad 1 [GND] of TP1 on F.Cu" or "Track [SIG_B] on F.Cu, length 10.0000 mm"'),
  reference: z.string().nullable().describe('Reference of the footprint involved (pads, footprints), else null'),
  pad: z.string().nullable().describe('Pad number, for pad items'),
  net: z.string().nullable().describe('Net of the item, null when it has none'),
  layer: z.string().nullable().describe('Layer or layer span of the item, e.g. F.Cu or "F.Cu - B.Cu"'),
  ...position,
});

export const DrcFinding = z.object({
  category: z
    .enum(['rule', 'unrouted', 'parity'])
    .describe("'rule' = design rule violation, 'unrouted' = a connection without copper, 'parity' = board and schematic disagree"),
  severity: z.enum(['error', 'warning', 'excluded']).describe("Severity after the policy: 'excluded' = waived in the design (never fails)"),
  kicad_severity: z.enum(['error', 'warning', 'exclusion']).describe('Severity KiCad reported'),
  type: z.string().describe('KiCad rule id, e.g. clearance, track_width, unconnected_items, missing_footprint'),
  message: z.string().describe('One line: KiCad message and the items involved, with positions in mm'),
  limit_mm: z.number().nullable().describe('Rule value in millimetres (required clearance, minimum width, ...) when KiCad states one'),
  actual_mm: z.number().nullable().describe('Measured value in millimetres when KiCad states one'),
  location: z.object(position).nullable().describe('Position of the first item involved, in millimetres; null when unknown'),
  items: z.array(DrcItem).describe('Board items involved (usually two)'),
});

export const RunDrcOutput = z.object({
  passed: z.boolean().describe('True when no error remains after the policy (and, with fail_on_warnings, no warning)'),
  summary: z.string().describe('One-line verdict with the counts and the rule ids found'),
  error_count: z.number().int().describe('Findings of severity error after the policy'),
  warning_count: z.number().int().describe('Findings of severity warning after the policy'),
  excluded_count: z.number().int().describe('Findings the design itself excludes (listed, never failing)'),
  ignored_count: z.number().int().describe('Findings left out by policy.ignore'),
  unrouted_count: z.number().int().describe('Listed connections that are not routed'),
  parity_issue_count: z.number().int().describe('Listed differences between board and schematic'),
  library_checks_skipped: z
    .number()
    .int()
    .describe('Footprint library checks KiCad reported that do not apply here (the tool has no footprint libraries); not listed'),
  findings: z
    .array(DrcFinding)
    .describe('Errors first, then warnings, then excluded; within each: rules, unrouted, parity, in KiCad order'),
  counts_by_type: z.record(z.string(), z.number().int()).describe('Listed findings per rule id'),
  parity_checked: z.boolean().describe('Whether the board was compared with the schematic'),
  notes: z.array(z.string().describe('A note')).describe('Notes from the tool about the result'),
});

export type SheetFile = z.infer<typeof SheetFile>;
export type DrcPolicy = z.infer<typeof DrcPolicy>;
export type RunDrcInput = z.infer<typeof RunDrcInput>;
export type DrcItem = z.infer<typeof DrcItem>;
export type DrcFinding = z.infer<typeof DrcFinding>;
export type RunDrcOutput = z.infer<typeof RunDrcOutput>;
