/**
 * How bad a finding is: an error keeps the package in DRAFT, a warning does not (and `validate --strict`
 * counts it as an error), an info only tells the author something (a field kept but without effect here).
 */
export type IssueSeverity = 'error' | 'warning' | 'info';

/** Which check produced a finding (also the enum of the wire view of a finding). */
export const ISSUE_CATEGORIES = [
  'files',
  'json',
  'definition',
  'schema',
  'handler',
  'examples',
  'policy',
  'docs',
  'dependencies',
  'compatibility',
  /** Required tools checked against the registry's adapters at registration (seed 001 §3.1). */
  'tools',
] as const;

export type IssueCategory = (typeof ISSUE_CATEGORIES)[number];

/** One finding about a skill package, precise enough for its author to act on. */
export interface ValidationIssue {
  severity: IssueSeverity;
  category: IssueCategory;
  /** File the finding is about, relative to the package directory (e.g. `definition.json`). */
  file: string;
  /** JSON pointer (or field path) inside `file`; `''` when the finding is about the whole file. */
  path: string;
  /** What is wrong, naming the field, export or class concerned. */
  message: string;
  /** How to fix it. */
  hint: string;
}

/** Collects the issues of one package while its checks run. */
export class IssueList {
  readonly items: ValidationIssue[] = [];

  error(category: IssueCategory, file: string, path: string, message: string, hint: string): void {
    this.items.push({ severity: 'error', category, file, path, message, hint });
  }

  warning(category: IssueCategory, file: string, path: string, message: string, hint: string): void {
    this.items.push({ severity: 'warning', category, file, path, message, hint });
  }

  info(category: IssueCategory, file: string, path: string, message: string, hint: string): void {
    this.items.push({ severity: 'info', category, file, path, message, hint });
  }

  get hasErrors(): boolean {
    return this.items.some((issue) => issue.severity === 'error');
  }
}

/** How many findings of each severity (the counts reports and lifecycle evidence carry). */
export function countIssues(issues: readonly Pick<ValidationIssue, 'severity'>[]): { errors: number; warnings: number; infos: number } {
  const count = (severity: IssueSeverity) => issues.filter((issue) => issue.severity === severity).length;
  return { errors: count('error'), warnings: count('warning'), infos: count('info') };
}

/** JSON pointer of a path of keys and indexes (RFC 6901). */
export function toJsonPointer(segments: readonly PropertyKey[]): string {
  return segments.map((segment) => '/' + String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
