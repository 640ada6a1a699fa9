import { SkillExecutionError, z } from '@skill-registry/sdk';
import type { BomLine, ExportBomInput, ExportBomOutput, SheetFile } from './schema.js';

export const BOM_TOOL = 'kicad.export_bom';
export const DEFAULT_GROUP_BY = ['Value', 'Footprint'];

// What this skill reads of the kicad.export_bom result (the adapter may return more).
const toolRow = z.object({
  references: z.array(z.string()).min(1),
  value: z.string(),
  footprint: z.string(),
  quantity: z.number().int().positive(),
  dnp: z.boolean(),
  description: z.string().nullable(),
  datasheet: z.string().nullable(),
  fields: z.record(z.string(), z.string()),
  mixed_fields: z.array(z.string()),
});
export const BomToolResult = z.object({
  rows: z.array(toolRow),
  totals: z.object({
    rows: z.number().int(),
    parts: z.number().int(),
    dnp_parts: z.number().int(),
    excluded_from_bom: z.number().int(),
    excluded_dnp: z.number().int(),
  }),
  group_by: z.array(z.string()),
  field_names: z.array(z.string()),
});
export type BomToolResult = z.infer<typeof BomToolResult>;

/** Read the tool's result, or fail with a message that says what was unexpected (including totals that do not add up). */
export function readToolResult(raw: unknown): BomToolResult {
  const parsed = BomToolResult.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SkillExecutionError(
      `${BOM_TOOL} returned a result this skill cannot read: at ${issue.path.join('.') || 'the top level'}: ${issue.message}`,
      { toolId: BOM_TOOL, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })) },
    );
  }
  const result = parsed.data;
  const inconsistent = (what: string) =>
    new SkillExecutionError(`${BOM_TOOL} returned an inconsistent result: ${what}`, { toolId: BOM_TOOL });
  const bad = result.rows.find((row) => row.quantity !== row.references.length);
  if (bad) throw inconsistent(`the row of ${bad.references.join(', ')} has quantity ${bad.quantity}`);
  const parts = result.rows.reduce((sum, row) => sum + row.quantity, 0);
  if (parts !== result.totals.parts || result.rows.length !== result.totals.rows) {
    throw inconsistent(
      `totals say ${result.totals.rows} rows / ${result.totals.parts} parts, the rows hold ${result.rows.length} / ${parts}`,
    );
  }
  const seen = new Set<string>();
  for (const reference of result.rows.flatMap((row) => row.references)) {
    if (seen.has(reference)) throw inconsistent(`reference ${reference} is listed twice`);
    seen.add(reference);
  }
  return result;
}

const SHEET_FILE = /\(property\s+"Sheet ?file"\s+"((?:[^"\\]|\\.)*)"/gi;

/** Problems with the input that make exporting pointless (checked before the tool is called). */
export function findInputProblems(input: { schematic: string; sheets?: SheetFile[]; group_by?: string[] }): string[] {
  const problems: string[] = [];
  if (!/^\s*\(\s*kicad_sch\b/.test(input.schematic)) {
    problems.push(
      "schematic is not the text of a KiCad schematic (.kicad_sch, starting with '(kicad_sch'); legacy .sch files are not supported",
    );
  }
  const given = new Set((input.sheets ?? []).map((sheet) => sheet.name));
  const files = [
    { name: 'schematic', content: input.schematic },
    ...(input.sheets ?? []).map((s) => ({ name: `sheet ${s.name}`, content: s.content })),
  ];
  for (const file of files) {
    for (const match of file.content.matchAll(SHEET_FILE)) {
      const name = match[1].replace(/\\(.)/g, '$1');
      if (!given.has(name)) problems.push(`${file.name} refers to sheet file '${name}', which is not among sheets; give its content too`);
    }
  }
  if (input.group_by?.some((name) => name.toLowerCase() === 'reference')) {
    problems.push('group_by cannot contain Reference: every part has its own (give [] for one line per part)');
  }
  return problems;
}

/** One CSV cell with RFC 4180 quoting. */
function cell(value: string | number | boolean): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Field value of a line by name, case-insensitively; '' when absent or mixed. */
function fieldValue(line: BomLine, name: string): string {
  const key = Object.keys(line.fields).find((field) => field.toLowerCase() === name.toLowerCase());
  return key === undefined ? '' : line.fields[key];
}

export function toCsv(lines: BomLine[], fieldColumns: string[]): string {
  const header = ['Item', 'References', 'Quantity', 'Value', 'Footprint', 'DNP', 'Description', ...fieldColumns];
  const rows = lines.map((line) => [
    line.item,
    line.designators,
    line.quantity,
    line.value,
    line.footprint,
    line.dnp ? 'DNP' : '',
    line.description ?? '',
    ...fieldColumns.map((name) => fieldValue(line, name)),
  ]);
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\n') + '\n';
}

/** The skill's result from the tool's rows. */
export function buildBom(result: BomToolResult, input: ExportBomInput): ExportBomOutput {
  const lines: BomLine[] = result.rows.map((row, index) => ({
    item: index + 1,
    references: row.references,
    designators: row.references.join(', '),
    quantity: row.quantity,
    value: row.value,
    footprint: row.footprint,
    dnp: row.dnp,
    description: row.description,
    datasheet: row.datasheet,
    fields: row.fields,
    mixed_fields: row.mixed_fields,
  }));
  return {
    lines,
    totals: {
      line_items: lines.length,
      parts: result.totals.parts,
      fitted_parts: result.totals.parts - result.totals.dnp_parts,
      dnp_parts: result.totals.dnp_parts,
      excluded_from_bom: result.totals.excluded_from_bom,
      excluded_dnp: result.totals.excluded_dnp,
    },
    group_by: result.group_by,
    field_names: result.field_names,
    csv: toCsv(lines, input.fields ?? result.field_names),
  };
}
