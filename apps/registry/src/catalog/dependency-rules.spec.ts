import type { SkillRecord, SkillVersionRecord } from './skill-records.js';
import { dependentsOf, findCycle, inactiveDependencies, pendingDependencies, strandedDependents } from './dependency-rules.js';

type Spec = [version: string, status: SkillVersionRecord['status'], dependsOn?: Record<string, string>];

/** A catalog from `{ name: [[version, status, { dependency: range }], …] }`, versions highest first. */
function catalogOf(skills: Record<string, Spec[]>) {
  const records = new Map<string, SkillRecord>(
    Object.entries(skills).map(([name, versions]) => [
      name,
      {
        name,
        versions: versions.map(
          ([version, status, dependsOn = {}]) =>
            ({
              name,
              version,
              status,
              dependsOn: Object.entries(dependsOn).map(([dep, range]) => ({ name: dep, range })),
            }) as SkillVersionRecord,
        ),
      },
    ]),
  );
  return { lookup: (name: string) => records.get(name), all: () => [...records.values()] };
}

describe('dependency rules', () => {
  const catalog = catalogOf({
    mesh: [
      ['2.0.0', 'REGISTERED'],
      ['1.3.0', 'ACTIVE'],
      ['1.2.0', 'DEPRECATED'],
    ],
    solver: [['1.0.0', 'ACTIVE', { mesh: '^1.2' }]],
    report: [['1.0.0', 'ACTIVE', { solver: '^1', mesh: '^1' }]],
    broken: [['0.1.0', 'DRAFT']],
    old: [['1.0.0', 'ARCHIVED', { report: '*' }]],
  });

  it('names a dependency as pending until a registered version in range exists (DRAFT and ARCHIVED do not count)', () => {
    expect(pendingDependencies([{ name: 'mesh', range: '^2' }], catalog.lookup)).toEqual([]);
    expect(pendingDependencies([{ name: 'mesh', range: '^3' }], catalog.lookup)).toEqual([{ name: 'mesh', range: '^3' }]);
    expect(pendingDependencies([{ name: 'broken', range: '*' }], catalog.lookup)).toEqual([{ name: 'broken', range: '*' }]);
    expect(pendingDependencies([{ name: 'nowhere', range: '*' }], catalog.lookup)).toHaveLength(1);
  });

  it('needs an ACTIVE version in range for promotion', () => {
    expect(inactiveDependencies([{ name: 'mesh', range: '^1' }], catalog.lookup)).toEqual([]);
    expect(inactiveDependencies([{ name: 'mesh', range: '^2' }], catalog.lookup)).toEqual([{ name: 'mesh', range: '^2' }]);
    expect(inactiveDependencies([{ name: 'mesh', range: '~1.2.0' }], catalog.lookup)).toEqual([{ name: 'mesh', range: '~1.2.0' }]);
  });

  it('finds cycles through the new version, naming the path, and accepts a diamond', () => {
    expect(findCycle('mesh', [{ name: 'report', range: '*' }], catalog.lookup)).toEqual(['mesh', 'report', 'solver', 'mesh']);
    expect(findCycle('mesh', [{ name: 'mesh_tools', range: '*' }], catalog.lookup)).toBeNull();
    // report → solver → mesh and report → mesh: two paths to one skill are no cycle.
    expect(
      findCycle(
        'report',
        [
          { name: 'solver', range: '^1' },
          { name: 'mesh', range: '^1' },
        ],
        catalog.lookup,
      ),
    ).toBeNull();
    // An archived version's dependencies are gone.
    expect(findCycle('report', [{ name: 'old', range: '*' }], catalog.lookup)).toBeNull();
    expect(findCycle('solver', [{ name: 'report', range: '*' }], catalog.lookup)).toEqual(['solver', 'report', 'solver']);
  });

  it('lists dependents and which of them a deprecation would strand', () => {
    expect(dependentsOf('mesh', catalog.all()).map(({ version, range }) => [version.name, range])).toEqual([
      ['solver', '^1.2'],
      ['report', '^1'],
    ]);
    const mesh = catalog.lookup('mesh') as SkillRecord;
    expect(strandedDependents(mesh, ['1.3.0'], catalog.all()).map(({ version }) => version.name)).toEqual(['solver', 'report']);
    expect(strandedDependents(mesh, ['1.2.0'], catalog.all())).toEqual([]);
    expect(strandedDependents(mesh, ['2.0.0'], catalog.all())).toEqual([]);
  });
});
