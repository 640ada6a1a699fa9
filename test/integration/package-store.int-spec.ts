import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  PackageCache,
  PackageStore,
  PackageTooLarge,
  PackageUnavailable,
  manifestHash,
  manifestOf,
  readPackageDir,
  removeWrittenFiles,
  writePackageFiles,
} from '#package-store/index.js';
import { hashSkillPackage } from '#skill-loader/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

describe('content-addressed package store (Postgres) and the executor-side cache', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let store: PackageStore;
  let work: string;

  beforeAll(async () => {
    db = await createTestDatabase('packages');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    store = new PackageStore(pool);
    work = await mkdtemp(path.join(tmpdir(), 'package-store-'));
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
    await rm(work, { recursive: true, force: true });
  });

  async function writePackage(name: string, files: Record<string, string>): Promise<string> {
    const dir = path.join(work, name);
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    return dir;
  }

  it('hashes the canonical manifest: same content, same hash wherever it lives; build output and VCS folders are not content', async () => {
    const one = await writePackage('one', {
      'handler.ts': 'export {}',
      'lib/util.ts': 'x',
      'node_modules/a/index.js': 'n',
      '.git/HEAD': 'h',
    });
    const two = await writePackage('two', { 'lib/util.ts': 'x', 'handler.ts': 'export {}', 'dist/handler.js': 'built' });
    const files = await readPackageDir(one);
    expect(files.map((file) => file.path)).toEqual(['handler.ts', 'lib/util.ts']);
    const hash = manifestHash(manifestOf(files));
    expect(hash).toBe(manifestHash(manifestOf(await readPackageDir(two))));
    // The loader's hash (what a version records) is the same manifest hash.
    expect(await hashSkillPackage(one)).toBe(hash);
    await chmod(path.join(two, 'lib/util.ts'), 0o755);
    expect(manifestHash(manifestOf(await readPackageDir(two)))).not.toBe(hash);
  });

  it('stores identical files and packages once, and reads back exactly the bytes', async () => {
    const dir = await writePackage('three', { 'handler.ts': 'export const a = 1;', 'copy.ts': 'export const a = 1;', 'SKILL.md': '# x' });
    const files = await readPackageDir(dir);
    const first = await store.save(files);
    const again = await store.save(files);
    expect(again.contentHash).toBe(first.contentHash);
    const counts = await pool.query(
      `SELECT (SELECT count(*) FROM package_blobs)::int AS blobs, (SELECT count(*) FROM packages)::int AS packages`,
    );
    expect(counts.rows[0]).toEqual({ blobs: 2, packages: 1 });
    const read = (await store.read(first.contentHash))!;
    expect(read.files.map((file) => [file.path, file.bytes.toString()])).toEqual(files.map((file) => [file.path, file.bytes.toString()]));
    expect(await store.read('sha256:' + '0'.repeat(64))).toBeNull();
  });

  it('refuses updates and deletes of stored packages and blobs', async () => {
    await expect(pool.query(`DELETE FROM packages`)).rejects.toThrow(/immutable/);
    await expect(pool.query(`UPDATE package_blobs SET size = 0`)).rejects.toThrow(/immutable/);
  });

  it('refuses a package over a limit, naming the limit', async () => {
    const dir = await writePackage('big', { 'a.ts': 'x'.repeat(2000), 'b.ts': 'y', 'c.ts': 'z' });
    const limits = { maxTotalBytes: 1_000_000, maxFiles: 2, maxFileBytes: 1_000_000 };
    await expect(readPackageDir(dir, limits)).rejects.toMatchObject({ limit: 'PACKAGE_MAX_FILES' });
    await expect(readPackageDir(dir, { ...limits, maxFiles: 10, maxFileBytes: 1024 })).rejects.toMatchObject({
      limit: 'PACKAGE_MAX_FILE_BYTES',
      entry: 'a.ts',
    });
    await expect(readPackageDir(dir, { ...limits, maxFiles: 10, maxTotalBytes: 1500 })).rejects.toBeInstanceOf(PackageTooLarge);
  });

  it('materialises a package once, atomically, re-verifies it after a restart and repairs a tampered copy', async () => {
    const dir = await writePackage('four', { 'handler.ts': 'export const original = true;', 'schema.ts': 'export {}' });
    const { contentHash } = await store.save(await readPackageDir(dir));
    const root = path.join(work, 'cache');
    const cache = new PackageCache(root, store);
    await cache.sweepTemporary();
    const local = await cache.directory(contentHash);
    expect(local).not.toBe(dir);
    expect(await readFile(path.join(local, 'handler.ts'), 'utf8')).toBe('export const original = true;');
    expect(await hashSkillPackage(local)).toBe(contentHash);

    // Someone edits the cached copy (or the disk corrupts it): a new process does not trust it.
    await writeFile(path.join(local, 'handler.ts'), 'export const tampered = true;');
    const restarted = new PackageCache(root, store);
    const again = await restarted.directory(contentHash);
    expect(await readFile(path.join(again, 'handler.ts'), 'utf8')).toBe('export const original = true;');
    await expect(restarted.directory('sha256:' + '1'.repeat(64))).rejects.toBeInstanceOf(PackageUnavailable);
    await expect(restarted.directory('../../etc')).rejects.toBeInstanceOf(PackageUnavailable);
  });

  it('evicts the least recently used packages above its size bound, never one in use', async () => {
    const hashes: string[] = [];
    for (const name of ['e1', 'e2', 'e3']) {
      const dir = await writePackage(name, { 'handler.ts': name.repeat(400) });
      hashes.push((await store.save(await readPackageDir(dir))).contentHash);
    }
    const cache = new PackageCache(path.join(work, 'small-cache'), store, 2000);
    await cache.sweepTemporary();
    const first = await cache.using(hashes[0]!, async (held) => {
      await cache.directory(hashes[1]!);
      await cache.directory(hashes[2]!); // over the bound: e2 goes (e1 is in use)
      return held;
    });
    await expect(readFile(path.join(first, 'handler.ts'), 'utf8')).resolves.toContain('e1');
    const evicted = path.join(work, 'small-cache', hashes[1]!.slice('sha256:'.length));
    await expect(readFile(path.join(evicted, 'handler.ts'))).rejects.toThrow();
  });

  it('counts the packages an earlier process left against the bound, and evicts them first', async () => {
    const hashes: string[] = [];
    for (const name of ['l1', 'l2']) {
      const dir = await writePackage(name, { 'handler.ts': name.repeat(400) });
      hashes.push((await store.save(await readPackageDir(dir))).contentHash);
    }
    const root = path.join(work, 'leftover-cache');
    const earlier = new PackageCache(root, store, 10_000);
    await earlier.sweepTemporary();
    const left = await earlier.directory(hashes[0]!);
    // A new process with a bound that only fits one package: the leftover goes when it needs room.
    const later = new PackageCache(root, store, 1000);
    await later.sweepTemporary();
    await later.directory(hashes[1]!);
    await expect(readFile(path.join(left, 'handler.ts'))).rejects.toThrow();
  });

  it('reads a symlinked file as its target and ignores a linked directory', async () => {
    const dir = await writePackage('links', { 'handler.ts': 'h', 'real/inner.ts': 'i' });
    await symlink(path.join(dir, 'handler.ts'), path.join(dir, 'alias.ts'));
    await symlink(path.join(dir, 'real'), path.join(dir, 'linked-dir'));
    expect((await readPackageDir(dir)).map((file) => file.path)).toEqual(['alias.ts', 'handler.ts', 'real/inner.ts']);
  });

  it('removes a written copy by its files, and what else is there by a recursive removal', async () => {
    const files = [
      { path: 'mech/skill/definition.json', mode: 0o644, bytes: Buffer.from('{}') },
      { path: 'mech/skill/lib/deep/util.ts', mode: 0o644, bytes: Buffer.from('x') },
      { path: 'mech/skill/run.sh', mode: 0o755, bytes: Buffer.from('#!/bin/sh') },
    ];
    const copy = path.join(work, 'copy-clean');
    await writePackageFiles(copy, files);
    await removeWrittenFiles(copy, files);
    await expect(stat(copy)).rejects.toMatchObject({ code: 'ENOENT' });

    const untidy = path.join(work, 'copy-untidy');
    await writePackageFiles(untidy, files);
    await writeFile(path.join(untidy, 'mech/skill/lib/left-behind.js'), 'y');
    await removeWrittenFiles(untidy, files);
    await expect(stat(untidy)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves out a dangling link and a link loop instead of failing the package', async () => {
    const dir = await writePackage('dangling', { 'handler.ts': 'h' });
    await symlink(path.join(dir, 'gone.ts'), path.join(dir, 'dangling.ts'));
    await symlink(path.join(dir, 'loop-b'), path.join(dir, 'loop-a'));
    await symlink(path.join(dir, 'loop-a'), path.join(dir, 'loop-b'));
    expect((await readPackageDir(dir)).map((file) => file.path)).toEqual(['handler.ts']);
  });

  it('reads a file past the synchronous-read size with the same bytes', async () => {
    const big = Buffer.alloc(300 * 1024, 7).toString('latin1');
    const dir = await writePackage('past-sync-size', { 'handler.ts': 'h', 'data/big.bin': big });
    const files = await readPackageDir(dir);
    expect(files.map((file) => [file.path, file.bytes.length])).toEqual([
      ['data/big.bin', 300 * 1024],
      ['handler.ts', 1],
    ]);
  });
});
