import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrationNames, unappliedMigrations } from './migrator.js';

describe('migration names for readiness', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the migration directories in order, reads the disk once per process, and names the unapplied ones', async () => {
    await mkdir(path.join(dir, '20260102000000_b'));
    await mkdir(path.join(dir, '20260101000000_a'));
    expect(await migrationNames(dir)).toEqual(['20260101000000_a', '20260102000000_b']);
    // A probe after the first does not go to the disk again (the shipped migrations do not change while a process runs).
    await mkdir(path.join(dir, '20260103000000_c'));
    expect(await migrationNames(dir)).toEqual(['20260101000000_a', '20260102000000_b']);
    expect(await unappliedMigrations(['20260101000000_a'], dir)).toEqual(['20260102000000_b']);
  });

  it('does not remember a failed read', async () => {
    const missing = path.join(dir, 'not-yet');
    await expect(migrationNames(missing)).rejects.toThrow();
    await mkdir(path.join(missing, '20260101000000_a'), { recursive: true });
    expect(await migrationNames(missing)).toEqual(['20260101000000_a']);
  });
});
