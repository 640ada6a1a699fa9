import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { applyMigrations, ensureDatabase, migrationsDir, unappliedMigrations } from '#database/index.js';
import { connect, TEST_SERVER_URL } from '../support/database.js';

function freshUrl(): { url: string; name: string } {
  const name = `skill_registry_test_migrator_${randomBytes(4).toString('hex')}`;
  const url = new URL(TEST_SERVER_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name };
}

async function dropDatabase(name: string): Promise<void> {
  const url = new URL(TEST_SERVER_URL);
  url.pathname = '/postgres';
  const client = await connect(url.toString());
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
}

describe('offline migrator', () => {
  const created: string[] = [];
  afterAll(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it('creates the database once even when several processes race to create it', async () => {
    const { url, name } = freshUrl();
    created.push(name);
    const results = await Promise.all([ensureDatabase(url), ensureDatabase(url), ensureDatabase(url)]);
    expect(results.filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('applies each migration exactly once under concurrent starts, in Prisma bookkeeping', async () => {
    const { url, name } = freshUrl();
    created.push(name);
    await ensureDatabase(url);
    const runs = await Promise.all([applyMigrations(url, migrationsDir()), applyMigrations(url, migrationsDir())]);
    const appliedTotal = runs.flatMap((run) => run.applied);
    // Every migration folder of the project, in order.
    const all = (await readdir(migrationsDir(), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(all.slice(0, 2)).toEqual(['20261129000000_init', '20261129010000_executions']);
    expect(appliedTotal).toEqual(all);
    const again = await applyMigrations(url, migrationsDir());
    expect(again).toEqual({ applied: [], alreadyApplied: all });

    const client = await connect(url);
    try {
      const rows = await client.query(`SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations"`);
      expect(rows.rows).toHaveLength(all.length);
      expect(rows.rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(rows.rows[0].finished_at).toBeInstanceOf(Date);
      expect(rows.rows[0].applied_steps_count).toBe(1);
      const tables = await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
      expect(tables.rows.map((r) => r.tablename)).toEqual([
        '_prisma_migrations',
        'executions',
        'lifecycle_events',
        'mcp_tasks',
        'package_blobs',
        'packages',
        'skill_versions',
        'skills',
        'twin_branches',
        'twin_constraint_reads',
        'twin_reads',
        'work_product_constraints',
        'work_product_revisions',
        'work_products',
      ]);
      expect(
        await unappliedMigrations(
          rows.rows.map((r) => r.migration_name),
          migrationsDir(),
        ),
      ).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('refuses to start when an applied migration was edited afterwards', async () => {
    const { url, name } = freshUrl();
    created.push(name);
    await ensureDatabase(url);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    await cp(migrationsDir(), dir, { recursive: true });
    await applyMigrations(url, dir);
    await writeFile(path.join(dir, '20261129000000_init', 'migration.sql'), '-- edited\nSELECT 1;');
    await expect(applyMigrations(url, dir)).rejects.toThrow(/changed after it was applied/);
    await rm(dir, { recursive: true, force: true });
  });

  it('rolls back a failing migration completely and reports it by name', async () => {
    const { url, name } = freshUrl();
    created.push(name);
    await ensureDatabase(url);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    await cp(migrationsDir(), dir, { recursive: true });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.join(dir, '20261130000000_broken'));
    await writeFile(
      path.join(dir, '20261130000000_broken', 'migration.sql'),
      'CREATE TABLE half_done (id int); SELECT * FROM no_such_table;',
    );
    await expect(applyMigrations(url, dir)).rejects.toThrow(/20261130000000_broken failed/);
    const client = await connect(url);
    try {
      const names = await client.query(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
      // Everything before the broken migration is applied, it and everything after are not.
      const before = (await readdir(migrationsDir())).filter((entry) => /^\d{14}_/.test(entry) && entry < '20261130000000_broken').sort();
      expect(names.rows.map((r) => r.migration_name)).toEqual(before);
      expect((await client.query(`SELECT to_regclass('half_done') AS t`)).rows[0].t).toBeNull();
    } finally {
      await client.end();
    }
    await rm(dir, { recursive: true, force: true });
  });
});
