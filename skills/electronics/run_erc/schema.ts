import { z } from '@skill-registry/sdk';

const RULE_ID = /^[a-z][a-z0-9_]*$/;

const ruleIds = (what: string) =>
  z
    .array(z.string().regex(RULE_ID).describe('KiCad ERC rule id in snake_case, e.g. pin_not_driven, power_pin_not_driven, label_dangling'))
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

export const ErcPolicy = z
  .object({
    treat_as_error: ruleIds(
      'Rule ids whose warnings count as errors (fail the check), e.g. ["pin_not_driven", "power_pin_not_driven"]. Excluded violations stay excluded',
    ),
    ignore: ruleIds(
      'Rule ids to leave out of the verdict and the list, e.g. ["endpoint_off_grid", "similar_labels"]; counted in ignored_count',
    ),
    fail_on_warnings: z.boolean().optional().describe('Fail the check when any warning remains (default false: only errors fail)'),
  })
  .strict();

export const RunErcInput = z
  .object({
    schematic: z
      .string()
      .min(1)
      .describe(
        'Text of the root schematic file (.kicad_sch, KiCad 6 or later). The file content itself, not a path or a digital-twin id: ' +
          'this service has no digital twin. Symbols come from the lib_symbols KiCad embeds in the file',
      ),
    sheets: z
      .array(SheetFile)
      .max(200)
      .optional()
      .describe('Sub-sheets of a hierarchical schematic: every file a sheet symbol refers to (Sheetfile) must be given'),
    project: z
      .string()
      .optional()
      .describe(
        'Text of the KiCad project file (.kicad_pro, JSON): ERC rule severities and pin conflict map of the design; KiCad defaults without it',
      ),
    policy: ErcPolicy.optional().describe('How to judge the violations KiCad reports; default: errors fail, warnings do not'),
  })
  .strict();

const position = {
  x_mm: z.number().nullable().describe('X on the sheet in millimetres from the top-left corner; null when KiCad gives no position'),
  y_mm: z.number().nullable().describe('Y on the sheet in millimetres, increasing downwards; null when KiCad gives no position'),
};

export const ErcItem = z.object({
  description: z.string().describe('What KiCad says the item is, e.g. "Symbol D2 Pin 1 [K, Passive, Line]"'),
  reference: z.string().nullable().describe('Reference designator of the symbol involved (e.g. D2); null for wires, labels, ...'),
  pin: z.string().nullable().describe('Pin number, for pin items'),
  pin_name: z.string().nullable().describe('Pin name (e.g. K), null when the pin has none'),
  pin_type: z.string().nullable().describe('Electrical type of the pin: Input, Output, Bidirectional, Passive, Power input, ...'),
  ...position,
});

export const ErcFinding = z.object({
  severity: z.enum(['error', 'warning', 'excluded']).describe("Severity after the policy: 'excluded' = waived in the design (never fails)"),
  kicad_severity: z.enum(['error', 'warning', 'exclusion']).describe('Severity KiCad reported'),
  type: z.string().describe('KiCad ERC rule id, e.g. pin_not_connected, pin_to_pin, power_pin_not_driven'),
  sheet: z.string().describe('Hierarchical sheet path, "/" for the root sheet, "/Power/" for a sub-sheet named Power'),
  message: z
    .string()
    .describe(
      'One line: KiCad message, the items involved and where, e.g. "Pin not connected: D2 pin 1 (K) at (88.9, 73.66) mm on sheet /"',
    ),
  location: z.object(position).nullable().describe('Position of the first item involved, in millimetres on its sheet; null when unknown'),
  items: z.array(ErcItem).describe('Schematic items involved (one or two)'),
});

export const RunErcOutput = z.object({
  passed: z.boolean().describe('True when no error remains after the policy (and, with fail_on_warnings, no warning)'),
  summary: z.string().describe('One-line verdict with the counts and the rule ids found'),
  error_count: z.number().int().describe('Findings of severity error after the policy'),
  warning_count: z.number().int().describe('Findings of severity warning after the policy'),
  excluded_count: z.number().int().describe('Findings the design itself excludes (listed, never failing)'),
  ignored_count: z.number().int().describe('Violations left out by policy.ignore'),
  library_checks_skipped: z
    .number()
    .int()
    .describe('Library checks KiCad reported that do not apply here (the tool has no symbol/footprint libraries); not listed'),
  findings: z.array(ErcFinding).describe('Violations: errors first, then warnings, then excluded; each group in sheet and KiCad order'),
  counts_by_type: z.record(z.string(), z.number().int()).describe('Listed findings per rule id'),
  sheets_checked: z.array(z.string().describe('Sheet path')).describe('Hierarchical paths of the sheets that were checked'),
  notes: z.array(z.string().describe('A note')).describe('Notes from the tool about the result (e.g. positions it could not verify)'),
});

export type SheetFile = z.infer<typeof SheetFile>;
export type ErcPolicy = z.infer<typeof ErcPolicy>;
export type RunErcInput = z.infer<typeof RunErcInput>;
export type ErcItem = z.infer<typeof ErcItem>;
export type ErcFinding = z.infer<typeof ErcFinding>;
export type RunErcOutput = z.infer<typeof RunErcOutput>;
