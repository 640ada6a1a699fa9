import { SkillExecutionError, z } from '@skill-registry/sdk';
import type { ErcFinding, ErcPolicy, RunErcInput, RunErcOutput, SheetFile } from './schema.js';

export const ERC_TOOL = 'kicad.run_erc';

// What this skill reads of the kicad.run_erc result (the adapter may return more).
const toolItem = z.object({
  description: z.string(),
  reference: z.string().nullable(),
  pin: z.string().nullable(),
  pin_name: z.string().nullable(),
  pin_type: z.string().nullable(),
  position_mm: z.object({ x: z.number(), y: z.number() }).nullable(),
});
const toolViolation = z.object({
  sheet: z.string(),
  severity: z.enum(['error', 'warning', 'exclusion']),
  type: z.string(),
  description: z.string(),
  items: z.array(toolItem),
});
export const ErcToolResult = z.object({
  violations: z.array(toolViolation),
  counts: z.object({ total: z.number().int() }),
  sheets: z.array(z.string()),
  library_checks_skipped: z.number().int(),
  warnings: z.array(z.string()),
});
export type ErcToolResult = z.infer<typeof ErcToolResult>;

/** Read the tool's result, or fail with a message that says what was unexpected. */
export function readToolResult(raw: unknown): ErcToolResult {
  const parsed = ErcToolResult.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SkillExecutionError(
      `${ERC_TOOL} returned a result this skill cannot read: at ${issue.path.join('.') || 'the top level'}: ${issue.message}`,
      { toolId: ERC_TOOL, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })) },
    );
  }
  if (parsed.data.counts.total !== parsed.data.violations.length) {
    throw new SkillExecutionError(
      `${ERC_TOOL} returned an inconsistent result: counts.total is ${parsed.data.counts.total} but ${parsed.data.violations.length} violations are listed`,
      { toolId: ERC_TOOL },
    );
  }
  return parsed.data;
}

const SHEET_FILE = /\(property\s+"Sheet ?file"\s+"((?:[^"\\]|\\.)*)"/gi;

/** Problems with the input that make running the check pointless (checked before the tool is called). */
export function findInputProblems(input: { schematic: string; sheets?: SheetFile[]; policy?: ErcPolicy }): string[] {
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
  const ignored = new Set(input.policy?.ignore ?? []);
  for (const type of input.policy?.treat_as_error ?? []) {
    if (ignored.has(type)) problems.push(`policy lists rule '${type}' both in ignore and in treat_as_error`);
  }
  return problems;
}

const fmt = (value: number) => String(Number(value.toFixed(4)));

/** "D2 pin 1 (K) at (88.9, 73.66) mm" */
function describeItem(item: ErcToolResult['violations'][number]['items'][number]): string {
  let what = item.description;
  if (item.reference && item.pin) what = `${item.reference} pin ${item.pin}${item.pin_name ? ` (${item.pin_name})` : ''}`;
  else if (item.reference) what = item.reference;
  return item.position_mm ? `${what} at (${fmt(item.position_mm.x)}, ${fmt(item.position_mm.y)}) mm` : what;
}

const ORDER = { error: 0, warning: 1, excluded: 2 } as const;

/** Apply the policy to the tool's violations and build the skill's result. */
export function judge(result: ErcToolResult, input: RunErcInput): RunErcOutput {
  const ignore = new Set(input.policy?.ignore ?? []);
  const elevate = new Set(input.policy?.treat_as_error ?? []);
  let ignored = 0;
  const findings: ErcFinding[] = [];
  for (const violation of result.violations) {
    if (ignore.has(violation.type)) {
      ignored++;
      continue;
    }
    const severity = violation.severity === 'exclusion' ? 'excluded' : elevate.has(violation.type) ? 'error' : violation.severity;
    const first = violation.items.find((item) => item.position_mm !== null);
    findings.push({
      severity,
      kicad_severity: violation.severity,
      type: violation.type,
      sheet: violation.sheet,
      message: `${violation.description}: ${violation.items.map(describeItem).join('; ') || 'no item given'} on sheet ${violation.sheet}`,
      location: first?.position_mm ? { x_mm: first.position_mm.x, y_mm: first.position_mm.y } : null,
      items: violation.items.map((item) => ({
        description: item.description,
        reference: item.reference,
        pin: item.pin,
        pin_name: item.pin_name,
        pin_type: item.pin_type,
        x_mm: item.position_mm?.x ?? null,
        y_mm: item.position_mm?.y ?? null,
      })),
    });
  }
  // Stable sort: KiCad's order (by sheet) within each severity.
  findings.sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
  const count = (severity: ErcFinding['severity']) => findings.filter((finding) => finding.severity === severity).length;
  const errors = count('error');
  const warnings = count('warning');
  const passed = errors === 0 && !(input.policy?.fail_on_warnings && warnings > 0);
  const countsByType: Record<string, number> = {};
  for (const finding of findings) countsByType[finding.type] = (countsByType[finding.type] ?? 0) + 1;
  const types = Object.entries(countsByType).map(([type, n]) => `${type} ×${n}`);
  const sheets = result.sheets.length;
  return {
    passed,
    summary:
      `ERC ${passed ? 'PASS' : 'FAIL'}: ${errors} error(s), ${warnings} warning(s), ${count('excluded')} excluded ` +
      `in ${sheets} sheet${sheets === 1 ? '' : 's'}` +
      (types.length ? ` (${types.join(', ')})` : '') +
      (ignored ? `; ${ignored} ignored by policy` : ''),
    error_count: errors,
    warning_count: warnings,
    excluded_count: count('excluded'),
    ignored_count: ignored,
    library_checks_skipped: result.library_checks_skipped,
    findings,
    counts_by_type: countsByType,
    sheets_checked: result.sheets,
    notes: result.warnings,
  };
}
