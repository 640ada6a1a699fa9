import { rm } from 'node:fs/promises';
import path from 'node:path';
import { SkillCatalog } from '../../apps/registry/src/catalog/skill-catalog.js';
import type { SkillRecord } from '../../apps/registry/src/catalog/skill-records.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * /readyz means every package found on disk is in the catalog (registered, or DRAFT with its
 * validation report) or refused with its reason (issue 30: a version stored but missing from the
 * in-process catalog failed every promotion of it while the registry said it was ready).
 */
describe('readiness: the catalog against the start-up discovery', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const admin = { token: ADMIN_TOKEN };

  beforeAll(async () => {
    db = await createTestDatabase('readiness');
    root = await tempRoot();
    // Two versions of one skill (registered at once at start-up), a DRAFT, and a second package claiming a stored version.
    await writeEchoSkill(root);
    await writeEchoSkill(path.join(root, 'previous'), { version: '0.1.0' });
    await writeEchoSkill(root, { name: 'bad_semver', version: '1.0' });
    await writeEchoSkill(path.join(root, 'second-copy'));
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root] });
  });

  afterAll(async () => {
    await registry?.stop();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('is ready with a catalog check counting the packages, the DRAFT and the refused one', async () => {
    const ready = await call(registry.baseUrl, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.info).toMatchObject({
      database: { status: 'up' },
      migrations: { status: 'up' },
      catalog: { status: 'up', packages: 4, stored: 3, drafts: 1, refused: 1 },
    });
  });

  it('names each refused package with its reason in the health report', async () => {
    const health = await call(registry.baseUrl, 'GET', '/v1/health', admin);
    expect(health.body.refused).toEqual([
      {
        path: expect.stringContaining('/second-copy/demo/echo_text'),
        name: 'echo_text',
        version: '1.0.0',
        refusal: 'DUPLICATE',
        reason: expect.stringContaining('DUPLICATE: echo_text@1.0.0 is also at'),
      },
    ]);
    expect(health.body.drafts).toEqual([expect.objectContaining({ name: 'bad_semver', first_error: expect.any(Object) })]);
  });

  it('is not ready while a stored version is missing from the catalog, naming it; a rescan puts it back', async () => {
    const catalog = registry.app.get(SkillCatalog);
    const skill = catalog.get('echo_text') as SkillRecord;
    // What issue 30's stale reload did: the skill's record put back without its newest version.
    (catalog as unknown as { apply(name: string, skill: SkillRecord): void }).apply('echo_text', {
      name: 'echo_text',
      versions: skill.versions.filter((version) => version.version !== '1.0.0'),
    });
    expect(catalog.version('echo_text', '1.0.0')).toBeUndefined();

    const lost = await call(registry.baseUrl, 'GET', '/readyz');
    expect(lost.status).toBe(503);
    expect(lost.body).toMatchObject({ code: 'NOT_READY', checks: { catalog: { status: 'down' } } });
    expect(lost.body.checks.catalog.problems).toEqual([
      expect.stringMatching(/^echo_text 1\.0\.0 is stored \((new|unchanged)\) but not in the catalog$/),
    ]);

    expect((await call(registry.baseUrl, 'POST', '/v1/admin/discover', admin)).status).toBe(200);
    expect(catalog.version('echo_text', '1.0.0')).toBeDefined();
    expect((await call(registry.baseUrl, 'GET', '/readyz')).status).toBe(200);
  });
});
