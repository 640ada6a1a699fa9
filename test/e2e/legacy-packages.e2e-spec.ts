import { rm } from 'node:fs/promises';
import pg from 'pg';
import { legacyContentHash, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * Versions registered before the package store carry the old whole-package digest and no stored package.
 * The one-time migration at start-up (versions/adopt-legacy-packages.ts) stores the unchanged package and
 * gives the version its manifest hash, keeping status and history; discovery's scan no longer does it.
 */
describe('start-up adopts versions registered before the package store', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry | undefined;
  let client: pg.Client;

  const row = async (name: string) =>
    (
      await client.query(
        `SELECT v.content_hash, v.status, v.lock_version, (SELECT count(*)::int FROM lifecycle_events e WHERE e.skill_version_id = v.id) AS events,
           EXISTS (SELECT 1 FROM packages p WHERE p.content_hash = v.content_hash) AS stored
         FROM skill_versions v JOIN skills s ON s.id = v.skill_id WHERE s.name = $1`,
        [name],
      )
    ).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase('legacy_packages');
    root = await tempRoot();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });

  afterAll(async () => {
    await registry?.stop();
    await client?.end();
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('stores the unchanged package and takes the manifest hash, once; a changed or missing package is left alone', async () => {
    const unchanged = await writeEchoSkill(root, { name: 'old_echo' });
    const gone = await writeEchoSkill(root, { name: 'gone_echo' });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root] });
    expect((await call(registry.baseUrl, 'POST', '/v1/admin/discover', { token: ADMIN_TOKEN })).status).toBe(200);
    const before = await row('old_echo');
    expect(before).toMatchObject({ status: 'REGISTERED', stored: true, events: 1 });
    await registry.stop();
    registry = undefined;

    // As a registry before the package store left them: the old digest, no stored package.
    const legacy = legacyContentHash(await readPackageDir(unchanged));
    await client.query(`UPDATE skill_versions SET content_hash = $1 WHERE skill_id = (SELECT id FROM skills WHERE name = 'old_echo')`, [
      legacy,
    ]);
    await client.query(
      `UPDATE skill_versions SET content_hash = 'sha256:${'0'.repeat(64)}' WHERE skill_id = (SELECT id FROM skills WHERE name = 'gone_echo')`,
    );
    // (packages refuses deletes through a trigger; replica mode skips it, as restoring an old dump would.)
    await client.query(`SET session_replication_role = replica`);
    await client.query(`DELETE FROM packages WHERE content_hash = $1`, [before.content_hash]);
    await client.query(`SET session_replication_role = DEFAULT`);
    await rm(gone, { recursive: true });
    expect(await row('old_echo')).toMatchObject({ content_hash: legacy, stored: false });

    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root] });
    const adopted = await row('old_echo');
    expect(adopted).toEqual({ ...before, lock_version: before.lock_version + 1 });
    const files = await call(registry.baseUrl, 'GET', '/v1/skills/old_echo/versions/1.0.0/files');
    expect(files).toMatchObject({ status: 200, body: { content_hash: before.content_hash } });
    // Its package is gone from disk: not adopted (discovery archives it, as any removed package).
    expect(await row('gone_echo')).toMatchObject({ content_hash: `sha256:${'0'.repeat(64)}`, status: 'ARCHIVED', stored: false });

    // Once: a second start changes nothing.
    await registry.stop();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root] });
    expect(await row('old_echo')).toEqual(adopted);
  });
});
