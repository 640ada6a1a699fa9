import { z } from '@skill-registry/sdk';

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

const fieldName = z
  .string()
  .min(1)
  .max(100)
  .describe('A symbol field name as in the schematic (case-insensitive), e.g. Value, Footprint, MPN');

export const ExportBomInput = z
  .object({
    schematic: z
      .string()
      .min(1)
      .describe(
        'Text of the root schematic file (.kicad_sch, KiCad 6 or later). The file content itself, not a path or a digital-twin id: ' +
          'this service has no digital twin',
      ),
    sheets: z
      .array(SheetFile)
      .max(200)
      .optional()
      .describe('Sub-sheets of a hierarchical schematic: every file a sheet symbol refers to (Sheetfile) must be given'),
    project: z.string().optional().describe('Text of the KiCad project file (.kicad_pro, JSON), e.g. for text variables used in fields'),
    group_by: z
      .array(fieldName)
      .max(20)
      .optional()
      .describe(
        'Fields whose equal values put parts on one BOM line; default ["Value", "Footprint"]; add e.g. "MPN" to split by part number, ' +
          'or give [] for one line per part. Parts marked DNP never share a line with fitted parts',
      ),
    fields: z
      .array(fieldName)
      .max(50)
      .optional()
      .describe('Extra fields to give CSV columns, in order (e.g. ["MPN", "Manufacturer"]); default every field found on the parts'),
    exclude_dnp: z.boolean().optional().describe('Leave out parts marked Do Not Populate (default: listed, with dnp true)'),
    include_excluded_from_bom: z
      .boolean()
      .optional()
      .describe("List symbols marked 'Exclude from bill of materials' too (default: left out, and counted)"),
  })
  .strict();

export const BomLine = z.object({
  item: z.number().int().describe('Line number, from 1'),
  references: z
    .array(z.string().describe('Reference designator'))
    .describe('Reference designators on this line, in natural order (R2 before R10)'),
  designators: z.string().describe('The references as one text, e.g. "R1, R2"'),
  quantity: z.number().int().describe('Number of parts on this line'),
  value: z.string().describe('Value, e.g. 470 or 100n (distinct values joined with ", " when the grouping does not include Value)'),
  footprint: z.string().describe('Footprint as library:name, e.g. Resistor_SMD:R_0603_1608Metric'),
  dnp: z.boolean().describe('Whether the parts are marked Do Not Populate'),
  description: z.string().nullable().describe("Description field, else the library symbol's description; null when none"),
  datasheet: z.string().nullable().describe('Datasheet field; null when empty'),
  fields: z.record(z.string(), z.string()).describe('Other fields (MPN, Manufacturer, ...) with the value every part on the line shares'),
  mixed_fields: z.array(z.string().describe('Field name')).describe('Fields whose values differ between the parts on this line'),
});

export const ExportBomOutput = z.object({
  lines: z.array(BomLine).describe('BOM lines, ordered by their first reference'),
  totals: z
    .object({
      line_items: z.number().int().describe('Number of BOM lines'),
      parts: z.number().int().describe('Parts listed (sum of quantities)'),
      fitted_parts: z.number().int().describe('Listed parts to be assembled (not DNP)'),
      dnp_parts: z.number().int().describe('Listed parts marked Do Not Populate'),
      excluded_from_bom: z.number().int().describe("Symbols left out because they are marked 'Exclude from BOM'"),
      excluded_dnp: z.number().int().describe('DNP parts left out because exclude_dnp was set'),
    })
    .describe('Totals of the BOM'),
  group_by: z.array(z.string().describe('Field name')).describe('Fields the lines are grouped by'),
  field_names: z
    .array(z.string().describe('Field name'))
    .describe('Every other field found on the parts (besides Reference, Value, Footprint, Datasheet, Description)'),
  csv: z
    .string()
    .describe(
      'The BOM as CSV (RFC 4180 quoting, "\\n" line ends): Item, References, Quantity, Value, Footprint, DNP, Description, then the field columns',
    ),
});

export type SheetFile = z.infer<typeof SheetFile>;
export type ExportBomInput = z.infer<typeof ExportBomInput>;
export type BomLine = z.infer<typeof BomLine>;
export type ExportBomOutput = z.infer<typeof ExportBomOutput>;
