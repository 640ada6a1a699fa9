import type { SkillRecord, SkillVersionRecord } from './skill-records.js';
import { isVersionOrRange, resolveVersion } from './version-resolution.js';

/** A skill with `versions` given highest first, as the catalog keeps them. */
function skill(...versions: [string, SkillVersionRecord['status']][]): SkillRecord {
  return {
    name: 'demo',
    versions: versions.map(([version, status]) => ({ name: 'demo', version, status }) as SkillVersionRecord),
  } as SkillRecord;
}

const catalog = skill(
  ['2.1.0-rc.1', 'REGISTERED'],
  ['2.0.0', 'REGISTERED'],
  ['1.4.0', 'DEPRECATED'],
  ['1.3.2', 'ACTIVE'],
  ['1.3.1', 'ACTIVE'],
  ['1.2.0', 'DEPRECATED'],
  ['0.3.4', 'ACTIVE'],
  ['0.3.1', 'ARCHIVED'],
);
const resolved = (requested: string | undefined) => resolveVersion(catalog, requested).version;

describe('version resolution', () => {
  it('picks the highest ACTIVE version in a range, whatever DEPRECATED versions lie above it', () => {
    expect(resolved('^1.2')).toBe('1.3.2');
    expect(resolved('>=1 <2')).toBe('1.3.2');
    expect(resolved('~1.3.1')).toBe('1.3.2');
    expect(resolved('1.x')).toBe('1.3.2');
    expect(resolved('~0.3.1')).toBe('0.3.4');
  });

  it('falls back to the highest DEPRECATED version when no ACTIVE one is in range', () => {
    expect(resolved('~1.4')).toBe('1.4.0');
    expect(resolved('1.2.x')).toBe('1.2.0');
  });

  it('never picks REGISTERED or ARCHIVED versions for a range, nor pre-releases unless the range names one', () => {
    expect(() => resolved('^2')).toThrow(/no executable version in range \^2; it has 2\.1\.0-rc\.1 \(REGISTERED\), 2\.0\.0 \(REGISTERED\)/);
    expect(() => resolved('0.3.1 - 0.3.3')).toThrow(/SKILL_NOT_FOUND|no executable version/);
    expect(() => resolved('>=2.1.0-rc.0')).toThrow(/no executable version/);
  });

  it('keeps exact versions and the default as they were: any status, or the current version', () => {
    expect(resolved('2.0.0')).toBe('2.0.0');
    expect(resolved('0.3.1')).toBe('0.3.1');
    expect(resolved(undefined)).toBe('1.4.0');
    expect(() => resolved('9.9.9')).toThrow(/has no version 9\.9\.9/);
  });

  it('tells a range from an exact version and from nonsense', () => {
    expect(['1.2.3', '^1.2', '~0.3.1', '>=1 <2', '*', '1.x'].every(isVersionOrRange)).toBe(true);
    expect(['', 'latest', 'v1.2.3x', '1..2'].some(isVersionOrRange)).toBe(false);
    expect(() => resolved('latest')).toThrow(/neither a version nor a semver range/);
  });
});
