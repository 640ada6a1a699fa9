import { relative } from 'node:path';
import type { LoadedSkillPackage } from './loader.js';

/** A package's validation report as text for a terminal: one block per package, one entry per issue. */
export function formatPackageReport(
  loaded: Pick<LoadedSkillPackage, 'packagePath' | 'identity' | 'issues' | 'valid'>,
  options: { cwd?: string } = {},
): string {
  const where = relative(options.cwd ?? process.cwd(), loaded.packagePath) || '.';
  const errors = loaded.issues.filter((issue) => issue.severity === 'error').length;
  const warnings = loaded.issues.length - errors;
  const status = loaded.valid ? 'OK' : 'INVALID';
  const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  const lines = [`${status}  ${loaded.identity.name}@${loaded.identity.version}  (${where})  ${counts}`];
  const ordered = [...loaded.issues].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  for (const issue of ordered) {
    const location = issue.file ? `${issue.file}${issue.path ? ` ${issue.path}` : ''}` : '(package)';
    lines.push(`  ${issue.severity.padEnd(7)} [${issue.category}] ${location}: ${issue.message}`);
    if (issue.hint)
      lines.push(...issue.hint.split('\n').map((line, index) => `${' '.repeat(10)}${index === 0 ? 'hint: ' : '      '}${line}`));
  }
  return lines.join('\n');
}
