import * as z from 'zod';
import { ToolFailure } from '../../common/src/index.js';
import type { DrcItem, DrcViolation, ErcItem, ErcViolation } from './schema.js';

/** Library checks: they need the symbol/footprint libraries, which the adapter does not have. */
const LIBRARY_CHECK_TYPES = new Set([
  'lib_symbol_issues',
  'lib_symbol_mismatch',
  'footprint_link_issues',
  'lib_footprint_issues',
  'lib_footprint_mismatch',
]);

// The parts of kicad-cli's JSON reports (schemas erc.v1.json / drc.v1.json) the adapter reads.
const rawItem = z.object({
  description: z.string(),
  pos: z.object({ x: z.number(), y: z.number() }).optional(),
  uuid: z.string().optional(),
});
const rawViolation = z.object({
  description: z.string(),
  severity: z.string(),
  type: z.string(),
  items: z.array(rawItem).default([]),
});
const rawErc = z.object({
  kicad_version: z.string().optional(),
  coordinate_units: z.string().optional(),
  sheets: z.array(z.object({ path: z.string(), violations: z.array(rawViolation).default([]) })),
});
const rawDrc = z.object({
  kicad_version: z.string().optional(),
  coordinate_units: z.string().optional(),
  violations: z.array(rawViolation).default([]),
  unconnected_items: z.array(rawViolation).default([]),
  schematic_parity: z.array(rawViolation).default([]),
});
type RawViolation = z.infer<typeof rawViolation>;
type RawItem = z.infer<typeof rawItem>;

function parseReport<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ToolFailure('PROGRAM_FAILED', `kicad-cli's ${what} report is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ToolFailure(
      'PROGRAM_FAILED',
      `kicad-cli's ${what} report has a shape this adapter does not understand (at ${issue.path.join('.') || 'the top'}: ${issue.message})`,
    );
  }
  const units = (parsed.data as { coordinate_units?: string }).coordinate_units;
  if (units !== undefined && units !== 'mm') {
    throw new ToolFailure('PROGRAM_FAILED', `kicad-cli wrote ${what} coordinates in '${units}' although millimetres were asked for`);
  }
  return parsed.data;
}

function severityOf(raw: string): 'error' | 'warning' | 'exclusion' {
  if (raw === 'error' || raw === 'warning' || raw === 'exclusion') return raw;
  throw new ToolFailure('PROGRAM_FAILED', `kicad-cli reported a violation with an unknown severity '${raw}'`);
}

const round = (value: number, digits = 6) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------------------- ERC

/** What the JSON ERC report holds, before positions are settled (see ercPositionScale). */
export interface ParsedErc {
  kicadVersion: string | null;
  sheets: string[];
  /** Violations with the raw JSON positions of their items. */
  violations: { sheet: string; raw: RawViolation }[];
}

export function parseErcJson(text: string): ParsedErc {
  const report = parseReport(rawErc, text, 'ERC');
  return {
    kicadVersion: report.kicad_version ?? null,
    sheets: report.sheets.map((sheet) => sheet.path),
    violations: report.sheets.flatMap((sheet) => sheet.violations.map((raw) => ({ sheet: sheet.path, raw }))),
  };
}

/** One `@(x mm, y mm): description` line of kicad-cli's text ERC report, in order. */
export interface ReportPosition {
  description: string;
  x: number;
  y: number;
}

const REPORT_POSITION = /^\s*@\(\s*(-?\d+(?:\.\d+)?)\s*mm,\s*(-?\d+(?:\.\d+)?)\s*mm\):\s?(.*)$/;

/** The item positions of a text ERC report (`--format report --units mm`), in report order. */
export function parseReportPositions(text: string): ReportPosition[] {
  const positions: ReportPosition[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = REPORT_POSITION.exec(line);
    if (match) positions.push({ x: Number(match[1]), y: Number(match[2]), description: match[3].trim() });
  }
  return positions;
}

/** Half a unit of the report's last printed digit (0.01 mm), plus rounding slack. */
const REPORT_TOLERANCE_MM = 0.0051;

/**
 * The factor that turns the JSON report's item positions into millimetres. KiCad 9 (and 10.0 at least up to 10.0.6)
 * writes schematic positions into the JSON report 100 times too small (the writer scales schematic units as if they
 * were board units); the text report has them right, to 0.01 mm. The two reports of the same schematic list the same
 * items in the same order, so the factor is read off them: 1 or 100, whichever makes every JSON position agree with
 * the text report. Null when they cannot be matched (then positions are not reported rather than guessed).
 */
export function ercPositionScale(parsed: ParsedErc, report: ReportPosition[]): { scale: number | null; reason?: string } {
  const jsonItems = parsed.violations.flatMap((violation) => violation.raw.items.filter((item) => item.pos !== undefined));
  if (jsonItems.length === 0) return { scale: 1 };
  if (jsonItems.length !== report.length) {
    return { scale: null, reason: `the text report lists ${report.length} positioned items, the JSON report ${jsonItems.length}` };
  }
  for (const [index, item] of jsonItems.entries()) {
    if (item.description.trim() !== report[index].description) {
      return {
        scale: null,
        reason: `item ${index} is '${item.description}' in the JSON report but '${report[index].description}' in the text report`,
      };
    }
  }
  for (const scale of [1, 100]) {
    const fits = jsonItems.every(
      (item, index) =>
        Math.abs(item.pos!.x * scale - report[index].x) <= REPORT_TOLERANCE_MM &&
        Math.abs(item.pos!.y * scale - report[index].y) <= REPORT_TOLERANCE_MM,
    );
    if (fits) return { scale };
  }
  return { scale: null, reason: 'the JSON positions agree with the text report at neither scale 1 nor 100' };
}

/** `Symbol D2 Pin 1 [K, Passive, Line]`, `Symbol J1 [Conn_01x02]`, `Label 'VIN'`, `Horizontal Wire, length 12.7 mm`, ... */
export function parseErcItem(item: RawItem, scale: number | null): ErcItem {
  const text = item.description.trim();
  const reference = /^Symbol (\S+)/.exec(text)?.[1] ?? null;
  const pinMatch = /^Symbol \S+ Pin (\S+) \[([^\]]*)\]/.exec(text);
  let pinName: string | null = null;
  let pinType: string | null = null;
  if (pinMatch) {
    // [name, type, shape] or, for a pin without a name, [type, shape]
    const parts = pinMatch[2].split(', ');
    if (parts.length >= 3) {
      pinName = parts.slice(0, parts.length - 2).join(', ');
      pinType = parts[parts.length - 2];
    } else if (parts.length === 2) pinType = parts[0];
  }
  const label = /\bLabel '(.*)'/.exec(text)?.[1] ?? /\bPin '(.*)'/.exec(text)?.[1] ?? null;
  return {
    description: text,
    reference,
    pin: pinMatch?.[1] ?? null,
    pin_name: pinName,
    pin_type: pinType,
    label,
    position_mm: item.pos && scale !== null ? { x: round(item.pos.x * scale), y: round(item.pos.y * scale) } : null,
    uuid: item.uuid ?? null,
  };
}

export function ercViolations(parsed: ParsedErc, scale: number | null): ErcViolation[] {
  return parsed.violations.map(({ sheet, raw }) => ({
    sheet,
    severity: severityOf(raw.severity),
    type: raw.type,
    description: raw.description,
    items: raw.items.map((item) => parseErcItem(item, scale)),
  }));
}

// ---------------------------------------------------------------------------------------------------------- DRC

export interface ParsedDrc {
  kicadVersion: string | null;
  violations: DrcViolation[];
  unconnected: DrcViolation[];
  parity: DrcViolation[];
}

export function parseDrcJson(text: string): ParsedDrc {
  const report = parseReport(rawDrc, text, 'DRC');
  return {
    kicadVersion: report.kicad_version ?? null,
    violations: report.violations.map(drcViolation),
    unconnected: report.unconnected_items.map(drcViolation),
    parity: report.schematic_parity.map(drcViolation),
  };
}

/** `(netclass 'Default' clearance 0.2000 mm; actual 0.1250 mm)`, `(board setting min width 0.2000 mm; actual 0.1000 mm)` */
const LIMIT_ACTUAL = /(-?\d+(?:\.\d+)?)\s*mm;\s*actual\s*(-?\d+(?:\.\d+)?)\s*mm/;

function drcViolation(raw: RawViolation): DrcViolation {
  const numbers = LIMIT_ACTUAL.exec(raw.description);
  return {
    severity: severityOf(raw.severity),
    type: raw.type,
    description: raw.description,
    limit_mm: numbers ? Number(numbers[1]) : null,
    actual_mm: numbers ? Number(numbers[2]) : null,
    items: raw.items.map(parseDrcItem),
  };
}

/** `Pad 1 [GND] of TP1 on F.Cu`, `Track [SIG_B] on F.Cu, length 10.0000 mm`, `Via [GND] on F.Cu - B.Cu`, `Footprint R1`. */
export function parseDrcItem(item: RawItem): DrcItem {
  const text = item.description.trim();
  const net = /\[([^\]]*)\]/.exec(text)?.[1];
  return {
    description: text,
    reference: /\bof (\S+)/.exec(text)?.[1] ?? /^Footprint (\S+)/.exec(text)?.[1] ?? null,
    pad: /\bpad (\S+) \[/i.exec(text)?.[1] ?? null,
    net: net === undefined || net === '' || net === '<no net>' ? null : net,
    layer: / on ([A-Za-z0-9_.]+(?: - [A-Za-z0-9_.]+)?)(?:,|$| )/.exec(text)?.[1] ?? null,
    position_mm: item.pos ? { x: round(item.pos.x), y: round(item.pos.y) } : null,
    uuid: item.uuid ?? null,
  };
}

/** Leave out library checks unless asked for; returns what is kept and how many were dropped. */
export function withoutLibraryChecks<T extends { type: string }>(violations: T[], keep: boolean): { kept: T[]; skipped: number } {
  if (keep) return { kept: violations, skipped: 0 };
  const kept = violations.filter((violation) => !LIBRARY_CHECK_TYPES.has(violation.type));
  return { kept, skipped: violations.length - kept.length };
}

export function countBy<T>(values: T[], key: (value: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
  return counts;
}
