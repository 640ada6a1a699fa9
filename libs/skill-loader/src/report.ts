import { relative } from 'node:path';
import { countIssues, type IssueSeverity } from './issues.js';
import type { LoadedSkillPackage } from './loader.js';

const SEVERITY_ORDER: Record<IssueSeverity, number> = { error: 0, warning: 1, info: 2 };

/** A package's validation report as text for a terminal: one block per package, one entry per issue. */
export function formatPackageReport(
  loaded: Pick<LoadedSkillPackage, 'packagePath' | 'identity' | 'issues' | 'valid'>,
  options: { cwd?: string } = {},
): string {
  const where = relative(options.cwd ?? process.cwd(), loaded.packagePath) || '.';
  const { errors, warnings, infos } = countIssues(loaded.issues);
  const status = loaded.valid ? 'OK' : 'INVALID';
  const counts =
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}` + (infos ? `, ${infos} info` : '');
  const lines = [`${status}  ${loaded.identity.name}@${loaded.identity.version}  (${where})  ${counts}`];
  const ordered = [...loaded.issues].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  for (const issue of ordered) {
    const location = issue.file ? `${issue.file}${issue.path ? ` ${issue.path}` : ''}` : '(package)';
    lines.push(`  ${issue.severity.padEnd(7)} [${issue.category}] ${location}: ${issue.message}`);
    if (issue.hint)
      lines.push(...issue.hint.split('\n').map((line, index) => `${' '.repeat(10)}${index === 0 ? 'hint: ' : '      '}${line}`));
  }
  return lines.join('\n');
}
