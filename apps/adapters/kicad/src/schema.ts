import * as z from 'zod';

/** Largest design file accepted in one parameter (the whole request is capped by MAX_REQUEST_BYTES). */
const MAX_FILE_CHARS = 16_000_000;

const schematic = z
  .string()
  .min(1)
  .max(MAX_FILE_CHARS)
  .describe(
    'Text of the root schematic (.kicad_sch, KiCad 6 or later S-expression format). Symbols are taken from its embedded ' +
      'lib_symbols: the adapter has no symbol libraries',
  );

const sheets = z
  .array(
    z.object({
      name: z
        .string()
        .describe(
          "Relative file name exactly as the parent sheet's Sheetfile property gives it (e.g. power.kicad_sch); no absolute paths, no ..",
        ),
      content: z.string().max(MAX_FILE_CHARS).describe('Text of that sub-sheet (.kicad_sch)'),
    }),
  )
  .max(200)
  .optional()
  .describe('Sub-sheets of a hierarchical schematic; every sheet the schematic refers to must be given');

const project = z
  .string()
  .max(MAX_FILE_CHARS)
  .optional()
  .describe(
    'Text of the KiCad project file (.kicad_pro, JSON) with the rule severities, pin conflict map, net classes, design rules ' +
      'and text variables; without it KiCad defaults apply',
  );

const libraryChecks = z
  .boolean()
  .optional()
  .describe(
    "Keep KiCad's library checks (symbol/footprint library not found or different from the library). The adapter has no " +
      'symbol or footprint libraries installed, so they fire for every part; by default they are left out and counted',
  );

const timeoutSeconds = z
  .number()
  .positive()
  .max(86_400)
  .optional()
  .describe('Time limit for kicad-cli in seconds (capped by the adapter limit)');

const position = z
  .object({
    x: z.number().describe('X in millimetres from the page (schematic) or board origin, increasing to the right'),
    y: z.number().describe('Y in millimetres from the origin, increasing downwards (KiCad convention)'),
  })
  .nullable()
  .describe('Where the item is, in millimetres; null when KiCad gives no position');

const severity = z
  .enum(['error', 'warning', 'exclusion'])
  .describe("KiCad's severity; 'exclusion' = a violation the design's owner excluded");

const common = {
  kicad_version: z.string().nullable().describe('Version of kicad-cli that ran the check'),
  run_time_seconds: z.number().describe('Wall-clock time of the kicad-cli runs in seconds'),
  library_checks_skipped: z.number().int().describe('Violations of library checks left out (see library_checks)'),
  warnings: z.array(z.string()).describe('Notes from the adapter about the result (e.g. positions that could not be verified)'),
};

// ---------------------------------------------------------------------------------------------------------- ERC

const ercItemSchema = z.object({
  description: z.string().describe('KiCad\'s description of the item, e.g. "Symbol D2 Pin 1 [K, Passive, Line]"'),
  reference: z.string().nullable().describe('Reference designator of the symbol involved (e.g. D2), null for wires, labels, ...'),
  pin: z.string().nullable().describe('Pin number, for pin items'),
  pin_name: z.string().nullable().describe('Pin name (e.g. K), null when the pin has none'),
  pin_type: z.string().nullable().describe('Electrical type of the pin as KiCad names it: Input, Output, Passive, Power input, ...'),
  label: z.string().nullable().describe('Text of the label, for label items'),
  position_mm: position,
  uuid: z.string().nullable().describe('UUID of the item in the schematic file'),
});
export type ErcItem = z.infer<typeof ercItemSchema>;

const ercViolationSchema = z.object({
  sheet: z.string().describe('Hierarchical path of the sheet, "/" for the root sheet, "/Power/" for a sub-sheet named Power'),
  severity,
  type: z.string().describe('KiCad rule id, e.g. pin_not_connected, pin_to_pin, power_pin_not_driven, label_dangling'),
  description: z.string().describe("KiCad's message, e.g. 'Pin not connected'"),
  items: z.array(ercItemSchema).describe('Schematic items involved (one or two)'),
});
export type ErcViolation = z.infer<typeof ercViolationSchema>;

const severityCounts = {
  error: z.number().int().describe('Violations of severity error'),
  warning: z.number().int().describe('Violations of severity warning'),
  exclusion: z.number().int().describe('Violations the design excludes'),
};

export const runErcInputSchema = z.object({
  schematic,
  sheets,
  project,
  library_checks: libraryChecks,
  timeout_seconds: timeoutSeconds,
});

export const runErcOutputSchema = z.object({
  passed: z.boolean().describe('True when no violation has severity error'),
  violations: z.array(ercViolationSchema).describe('Every violation, by sheet, in the order KiCad reports them'),
  counts: z.object({ ...severityCounts, total: z.number().int().describe('All violations') }).describe('Violations by severity'),
  counts_by_type: z.record(z.string(), z.number().int()).describe('Violations per rule id'),
  sheets: z.array(z.string()).describe('Sheet paths that were checked'),
  ...common,
});
export type RunErcOutput = z.infer<typeof runErcOutputSchema>;

// ---------------------------------------------------------------------------------------------------------- DRC

const drcItemSchema = z.object({
  description: z.string().describe('KiCad\'s description of the item, e.g. "Pad 1 [GND] of TP1 on F.Cu"'),
  reference: z.string().nullable().describe('Reference of the footprint involved (pads, footprints), else null'),
  pad: z.string().nullable().describe('Pad number, for pad items'),
  net: z.string().nullable().describe('Net of the item (tracks, vias, pads, zones), null when none'),
  layer: z.string().nullable().describe('Layer or layer span, e.g. F.Cu or "F.Cu - B.Cu"'),
  position_mm: position,
  uuid: z.string().nullable().describe('UUID of the item in the board file'),
});
export type DrcItem = z.infer<typeof drcItemSchema>;

const drcViolationSchema = z.object({
  severity,
  type: z.string().describe('KiCad rule id, e.g. clearance, track_width, unconnected_items, courtyards_overlap, missing_footprint'),
  description: z
    .string()
    .describe("KiCad's message, e.g. 'Clearance violation (netclass 'Default' clearance 0.2000 mm; actual 0.1250 mm)'"),
  limit_mm: z.number().nullable().describe('The rule value in millimetres (minimum clearance, width, ...), when the message states one'),
  actual_mm: z.number().nullable().describe('The measured value in millimetres, when the message states one'),
  items: z.array(drcItemSchema).describe('Board items involved (usually two)'),
});
export type DrcViolation = z.infer<typeof drcViolationSchema>;

export const runDrcInputSchema = z.object({
  board: z
    .string()
    .min(1)
    .max(MAX_FILE_CHARS)
    .describe('Text of the board (.kicad_pcb, KiCad 6 or later S-expression format); footprints are embedded in it'),
  project,
  custom_rules: z
    .string()
    .max(MAX_FILE_CHARS)
    .optional()
    .describe('Text of the custom design rules file (.kicad_dru), e.g. (version 1) (rule "hv" (constraint clearance (min 1mm)) ...)'),
  schematic: schematic
    .optional()
    .describe(
      'Text of the root schematic (.kicad_sch): when given, the board is also checked for parity with it (footprints, values, nets)',
    ),
  sheets,
  all_track_errors: z.boolean().optional().describe('Report every error of each track, not only the first (kicad-cli --all-track-errors)'),
  library_checks: libraryChecks,
  timeout_seconds: timeoutSeconds,
});

export const runDrcOutputSchema = z.object({
  passed: z.boolean().describe('True when no violation, unconnected item or parity issue has severity error'),
  violations: z.array(drcViolationSchema).describe('Design rule violations (clearance, width, annular ring, courtyard, edge, ...)'),
  unconnected_items: z.array(drcViolationSchema).describe('Connections of a net that are not routed (ratsnest lines), two items each'),
  schematic_parity: z.array(drcViolationSchema).describe('Differences between board and schematic; empty unless a schematic was given'),
  parity_checked: z.boolean().describe('Whether the board was compared with a schematic'),
  counts: z
    .object({
      ...severityCounts,
      violations: z.number().int().describe('Entries in violations'),
      unconnected_items: z.number().int().describe('Entries in unconnected_items'),
      schematic_parity: z.number().int().describe('Entries in schematic_parity'),
    })
    .describe('Severities over all three lists, and the length of each list'),
  counts_by_type: z.record(z.string(), z.number().int()).describe('Entries per rule id, over all three lists'),
  ...common,
});
export type RunDrcOutput = z.infer<typeof runDrcOutputSchema>;

// ---------------------------------------------------------------------------------------------------------- BOM

const bomRowSchema = z.object({
  references: z.array(z.string()).describe('Reference designators of the grouped parts, in natural order (R2 before R10)'),
  value: z.string().describe('Value (distinct values joined with ", " when the grouping does not include Value)'),
  footprint: z.string().describe('Footprint as library:name (joined like value when it differs within the group)'),
  quantity: z.number().int().describe('Number of parts in the row'),
  dnp: z.boolean().describe('Whether the parts are marked Do Not Populate'),
  description: z.string().nullable().describe("Description field, else the library symbol's description"),
  datasheet: z.string().nullable().describe('Datasheet field (null when empty or "~")'),
  library_part: z.string().nullable().describe('Library symbol the parts come from, as library:symbol'),
  fields: z.record(z.string(), z.string()).describe('Other fields (MPN, Manufacturer, ...) with the value all parts of the row share'),
  mixed_fields: z.array(z.string()).describe('Fields whose values differ between parts of the row (not in fields)'),
});
export type BomRow = z.infer<typeof bomRowSchema>;

export const exportBomInputSchema = z.object({
  schematic,
  sheets,
  project,
  group_by: z
    .array(z.string().min(1).max(100))
    .max(20)
    .optional()
    .describe(
      'Fields whose equal values put parts in one row (case-insensitive: Value, Footprint, Datasheet, Description or any ' +
        'user field such as MPN). Default ["Value", "Footprint"]; [] gives one row per part. DNP parts never share a row with fitted ones',
    ),
  exclude_dnp: z.boolean().optional().describe('Leave out parts marked Do Not Populate (default: list them with dnp true)'),
  include_excluded_from_bom: z
    .boolean()
    .optional()
    .describe("Also list symbols marked 'Exclude from bill of materials' (default: left out and counted)"),
  timeout_seconds: timeoutSeconds,
});

export const exportBomOutputSchema = z.object({
  rows: z.array(bomRowSchema).describe('BOM lines, ordered by their first reference'),
  totals: z
    .object({
      rows: z.number().int().describe('Number of BOM lines'),
      parts: z.number().int().describe('Number of parts listed (sum of quantities)'),
      dnp_parts: z.number().int().describe('Listed parts marked Do Not Populate'),
      excluded_from_bom: z.number().int().describe("Symbols left out because they are marked 'Exclude from BOM'"),
      excluded_dnp: z.number().int().describe('DNP parts left out because exclude_dnp was set'),
    })
    .describe('Totals of the BOM'),
  group_by: z.array(z.string()).describe('Fields the rows are grouped by (as applied)'),
  field_names: z
    .array(z.string())
    .describe('Every other field name found on the parts (besides Reference, Value, Footprint, Datasheet, Description)'),
  kicad_version: common.kicad_version,
  run_time_seconds: common.run_time_seconds,
});
export type ExportBomOutput = z.infer<typeof exportBomOutputSchema>;
