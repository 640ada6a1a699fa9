import { countIssues, type ValidationIssue } from './issues.js';
import { formatPackageReport } from './report.js';

const issue = (severity: ValidationIssue['severity'], message: string): ValidationIssue => ({
  severity,
  category: 'definition',
  file: 'SKILL.md',
  path: '/x',
  message,
  hint: '',
});

describe('package reports with three severities', () => {
  const issues = [
    issue('info', 'kept without effect'),
    issue('warning', 'no version'),
    issue('error', 'bad name'),
    issue('info', 'another'),
  ];

  it('counts each severity on its own (an info is not a warning)', () => {
    expect(countIssues(issues)).toEqual({ errors: 1, warnings: 1, infos: 2 });
  });

  it('prints errors, then warnings, then infos, with the counts of each', () => {
    const text = formatPackageReport(
      { packagePath: '/tmp/p', identity: { name: 'p', version: '1.0.0' }, issues, valid: false },
      { cwd: '/tmp' },
    );
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^INVALID {2}p@1\.0\.0 {2}\(p\) {2}1 error, 1 warning, 2 info$/);
    expect(lines.slice(1).map((line) => line.trim().split(' ')[0])).toEqual(['error', 'warning', 'info', 'info']);
  });

  it('leaves the info count out when there is none', () => {
    const text = formatPackageReport(
      { packagePath: '/tmp/p', identity: { name: 'p', version: '1.0.0' }, issues: [], valid: true },
      { cwd: '/tmp' },
    );
    expect(text).toMatch(/0 errors, 0 warnings$/);
  });
});
