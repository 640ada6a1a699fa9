import { SkillExecutionError, z } from '@skill-registry/sdk';
import type { DrcFinding, DrcPolicy, RunDrcInput, RunDrcOutput, SheetFile } from './schema.js';

export const DRC_TOOL = 'kicad.run_drc';

// What this skill reads of the kicad.run_drc result (the adapter may return more).
const toolItem = z.object({
  description: z.string(),
  reference: z.string().nullable(),
  pad: z.string().nullable(),
  net: z.string().nullable(),
  layer: z.string().nullable(),
  position_mm: z.object({ x: z.number(), y: z.number() }).nullable(),
});
const toolViolation = z.object({
  severity: z.enum(['error', 'warning', 'exclusion']),
  type: z.string(),
  description: z.string(),
  limit_mm: z.number().nullable(),
  actual_mm: z.number().nullable(),
  items: z.array(toolItem),
});
export const DrcToolResult = z.object({
  violations: z.array(toolViolation),
  unconnected_items: z.array(toolViolation),
  schematic_parity: z.array(toolViolation),
  parity_checked: z.boolean(),
  library_checks_skipped: z.number().int(),
  warnings: z.array(z.string()),
});
export type DrcToolResult = z.infer<typeof DrcToolResult>;
type ToolViolation = z.infer<typeof toolViolation>;

/** Read the tool's result, or fail with a message that says what was unexpected. */
export function readToolResult(raw: unknown, parityAsked: boolean): DrcToolResult {
  const parsed = DrcToolResult.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SkillExecutionError(
      `${DRC_TOOL} returned a result this skill cannot read: at ${issue.path.join('.') || 'the top level'}: ${issue.message}`,
      { toolId: DRC_TOOL, issues: parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.join('.'), message: i.message })) },
    );
  }
  if (parsed.data.parity_checked !== parityAsked) {
    throw new SkillExecutionError(
      `${DRC_TOOL} returned an inconsistent result: parity_checked is ${parsed.data.parity_checked} although a schematic was ${parityAsked ? '' : 'not '}given`,
      { toolId: DRC_TOOL },
    );
  }
  return parsed.data;
}

const SHEET_FILE = /\(property\s+"Sheet ?file"\s+"((?:[^"\\]|\\.)*)"/gi;

/** Problems with the input that make running the check pointless (checked before the tool is called). */
export function findInputProblems(input: {
  board: string;
  schematic?: string;
  sheets?: SheetFile[];
  custom_rules?: string;
  policy?: DrcPolicy;
}): string[] {
  const problems: string[] = [];
  if (!/^\s*\(\s*kicad_pcb\b/.test(input.board)) {
    problems.push("board is not the text of a KiCad board (.kicad_pcb, starting with '(kicad_pcb'); legacy .brd files are not supported");
  }
  if (input.custom_rules !== undefined && !/^\s*\(\s*version\b/.test(input.custom_rules)) {
    problems.push("custom_rules is not the text of a .kicad_dru file (it starts with '(version 1)')");
  }
  if (input.schematic === undefined) {
    if (input.sheets?.length) problems.push('sheets are given without the schematic they belong to');
  } else {
    if (!/^\s*\(\s*kicad_sch\b/.test(input.schematic))
      problems.push("schematic is not the text of a KiCad schematic (.kicad_sch, starting with '(kicad_sch')");
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
  }
  const ignored = new Set(input.policy?.ignore ?? []);
  for (const type of input.policy?.treat_as_error ?? []) {
    if (ignored.has(type)) problems.push(`policy lists rule '${type}' both in ignore and in treat_as_error`);
  }
  return problems;
}

const fmt = (value: number) => String(Number(value.toFixed(4)));

function describeItem(item: ToolViolation['items'][number]): string {
  return item.position_mm ? `${item.description} at (${fmt(item.position_mm.x)}, ${fmt(item.position_mm.y)}) mm` : item.description;
}

const SEVERITY_ORDER = { error: 0, warning: 1, excluded: 2 } as const;
const CATEGORY_ORDER = { rule: 0, unrouted: 1, parity: 2 } as const;
const CATEGORY_WORDS = { rule: 'rule violation(s)', unrouted: 'unrouted connection(s)', parity: 'parity issue(s)' } as const;

/** Apply the policy to what the tool reported and build the skill's result. */
export function judge(result: DrcToolResult, input: RunDrcInput): RunDrcOutput {
  const ignore = new Set(input.policy?.ignore ?? []);
  const elevate = new Set(input.policy?.treat_as_error ?? []);
  let ignored = 0;
  const findings: DrcFinding[] = [];
  const add = (category: DrcFinding['category'], violation: ToolViolation) => {
    if (ignore.has(violation.type)) {
      ignored++;
      return;
    }
    let severity: DrcFinding['severity'] = violation.severity === 'exclusion' ? 'excluded' : violation.severity;
    if (severity === 'warning' && elevate.has(violation.type)) severity = 'error';
    if (severity === 'error' && category === 'unrouted' && input.policy?.allow_unrouted) severity = 'warning';
    const first = violation.items.find((item) => item.position_mm !== null);
    findings.push({
      category,
      severity,
      kicad_severity: violation.severity,
      type: violation.type,
      message: `${violation.description}: ${violation.items.map(describeItem).join('; ') || 'no item given'}`,
      limit_mm: violation.limit_mm,
      actual_mm: violation.actual_mm,
      location: first?.position_mm ? { x_mm: first.position_mm.x, y_mm: first.position_mm.y } : null,
      items: violation.items.map((item) => ({
        description: item.description,
        reference: item.reference,
        pad: item.pad,
        net: item.net,
        layer: item.layer,
        x_mm: item.position_mm?.x ?? null,
        y_mm: item.position_mm?.y ?? null,
      })),
    });
  };
  for (const violation of result.violations) add('rule', violation);
  for (const violation of result.unconnected_items) add('unrouted', violation);
  for (const violation of result.schematic_parity) add('parity', violation);
  // Stable sort: KiCad's order within each severity and category.
  findings.sort(
    (a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || CATEGORY_ORDER[a.category] - CATEGORY_ORDER[b.category],
  );

  const count = (severity: DrcFinding['severity']) => findings.filter((finding) => finding.severity === severity).length;
  const errors = count('error');
  const warnings = count('warning');
  const passed = errors === 0 && !(input.policy?.fail_on_warnings && warnings > 0);
  const countsByType: Record<string, number> = {};
  for (const finding of findings) countsByType[finding.type] = (countsByType[finding.type] ?? 0) + 1;
  const perCategory = (['rule', 'unrouted', 'parity'] as const)
    .map((category) => [category, findings.filter((finding) => finding.category === category).length] as const)
    .filter(([, n]) => n > 0)
    .map(([category, n]) => `${n} ${CATEGORY_WORDS[category]}`);
  return {
    passed,
    summary:
      `DRC ${passed ? 'PASS' : 'FAIL'}: ${errors} error(s), ${warnings} warning(s), ${count('excluded')} excluded` +
      (perCategory.length ? ` (${perCategory.join(', ')})` : '') +
      (result.parity_checked ? '; checked against the schematic' : '') +
      (ignored ? `; ${ignored} ignored by policy` : ''),
    error_count: errors,
    warning_count: warnings,
    excluded_count: count('excluded'),
    ignored_count: ignored,
    unrouted_count: findings.filter((finding) => finding.category === 'unrouted').length,
    parity_issue_count: findings.filter((finding) => finding.category === 'parity').length,
    library_checks_skipped: result.library_checks_skipped,
    findings,
    counts_by_type: countsByType,
    parity_checked: result.parity_checked,
    notes: result.warnings,
  };
}
