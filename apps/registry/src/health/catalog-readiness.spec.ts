import type { SkillVersionRecord } from '../catalog/skill-records.js';
import type { DiscoveryReport } from '../versions/discovery.service.js';
import type { PackageReport } from '../versions/register-skill.js';
import { catalogReadiness } from './catalog-readiness.js';

function entry(name: string, version: string, outcome: PackageReport['outcome'], extra: Partial<PackageReport> = {}): PackageReport {
  return { path: `/skills/${name}`, name, version, outcome, status: 'REGISTERED', errors: 0, warnings: 0, message: null, ...extra };
}

function report(...packages: PackageReport[]): DiscoveryReport {
  return { new: 0, updated: 0, unchanged: 0, refused: 0, archived: 0, missing_roots: [], packages, archived_versions: [] };
}

function catalogOf(...versions: Partial<SkillVersionRecord>[]) {
  return {
    version: (name: string, version: string) => versions.find((v) => v.name === name && v.version === version) as SkillVersionRecord,
  };
}

const error = { severity: 'error', message: 'broken' } as SkillVersionRecord['validation'][number];

describe('catalogReadiness', () => {
  it('is down until the start-up discovery has finished', () => {
    expect(catalogReadiness(null, catalogOf())).toMatchObject({
      up: false,
      data: { problems: [expect.stringContaining('has not finished')] },
    });
  });

  it('is up with counts when every stored package is in the catalog, DRAFTs with their report, refusals with a reason', () => {
    const scanned = report(
      entry('validate_stress', '1.0.0', 'new'),
      entry('validate_stress', '0.1.0', 'new'),
      entry('bad', '1.0', 'new', { status: 'DRAFT', errors: 1 }),
      entry('validate_stress', '1.0.0', 'refused', { refusal: 'DUPLICATE', message: 'DUPLICATE: also at /x' }),
      entry('', '', 'refused', { refusal: 'FAILED', message: 'PACKAGE_TOO_LARGE: too big' }),
    );
    const catalog = catalogOf(
      { name: 'validate_stress', version: '1.0.0', status: 'ACTIVE', validation: [] },
      { name: 'validate_stress', version: '0.1.0', status: 'REGISTERED', validation: [] },
      { name: 'bad', version: '1.0', status: 'DRAFT', validation: [error] },
    );
    expect(catalogReadiness(scanned, catalog)).toEqual({ up: true, data: { packages: 5, stored: 3, drafts: 1, refused: 2 } });
  });

  it('is down naming a stored version the catalog lost (issue 30), a DRAFT without its report and a refusal without a reason', () => {
    const scanned = report(
      entry('validate_stress', '1.0.0', 'new'),
      entry('validate_stress', '0.1.0', 'unchanged'),
      entry('bad', '1.0', 'new', { status: 'DRAFT', errors: 1 }),
      entry('', '', 'refused', { path: '/skills/odd', refusal: 'FAILED', message: '' }),
    );
    const catalog = catalogOf(
      { name: 'validate_stress', version: '0.1.0', status: 'REGISTERED', validation: [] },
      { name: 'bad', version: '1.0', status: 'DRAFT', validation: [] },
    );
    expect(catalogReadiness(scanned, catalog)).toEqual({
      up: false,
      data: {
        message: expect.any(String),
        problems: [
          'validate_stress 1.0.0 is stored (new) but not in the catalog',
          'bad 1.0 is DRAFT without a validation error',
          '/skills/odd was refused (FAILED) without a reason',
        ],
      },
    });
  });
});
