// On the real file system, as root (as CI runs): 65534 stands for another user of the machine.
import { afterAll, describe, expect, it } from '@jest/globals';
import { chmod, chown, lchown, mkdir, mkdtemp, realpath, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensurePrivateDirectory, UnsafeDirectory } from './private-directory.js';

const REMEDY = 'Set SOME_DIR.';
const OTHER_USER = 65534;

describe('ensurePrivateDirectory', () => {
  const made: string[] = [];
  const scratch = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'private-dir-'));
    made.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  it('makes the directory and its missing parents (0755) and answers its real path', async () => {
    const base = await scratch();
    const dir = path.join(base, 'a', 'b');
    expect(await ensurePrivateDirectory(dir, REMEDY)).toBe(path.join(await realpath(base), 'a', 'b'));
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
    // Under a sticky directory anyone may write to (as /tmp, /dev/shm): the directory of ours in it is enough.
    const sticky = path.join(base, 'shared');
    await mkdir(sticky);
    await chmod(sticky, 0o1777);
    await expect(ensurePrivateDirectory(path.join(sticky, 'ours'), REMEDY)).resolves.toBeTruthy();
  });

  it('refuses a directory of another user, naming it, its owner and the remedy', async () => {
    const dir = path.join(await scratch(), 'planted');
    await mkdir(dir, { mode: 0o755 });
    await chown(dir, OTHER_USER, OTHER_USER);
    const refusal = ensurePrivateDirectory(dir, REMEDY);
    await expect(refusal).rejects.toBeInstanceOf(UnsafeDirectory);
    await expect(refusal).rejects.toThrow(`${await realpath(dir)} is not safe to keep code in: it belongs to uid ${OTHER_USER}`);
    await expect(refusal).rejects.toThrow(REMEDY);
  });

  it('refuses a directory below one of another user (who could rename it away and put another in its place)', async () => {
    const parent = path.join(await scratch(), 'theirs');
    await mkdir(parent, { mode: 0o755 });
    await chown(parent, OTHER_USER, OTHER_USER);
    await expect(ensurePrivateDirectory(path.join(parent, 'ours'), REMEDY)).rejects.toThrow(
      /theirs is not safe to keep code in: it belongs to uid 65534/,
    );
  });

  it('refuses a directory others may write to, and one below a parent others may write to that is not sticky', async () => {
    const open = path.join(await scratch(), 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    await expect(ensurePrivateDirectory(open, REMEDY)).rejects.toThrow(
      /open is not safe to keep code in: other users may write to it \(mode 0777\)/,
    );
    await expect(ensurePrivateDirectory(path.join(open, 'ours'), REMEDY)).rejects.toThrow(/open is not safe .*mode 0777/);
    const group = path.join(await scratch(), 'group');
    await mkdir(group);
    await chmod(group, 0o775);
    await expect(ensurePrivateDirectory(group, REMEDY)).rejects.toThrow(/mode 0775/);
  });

  it('refuses a symbolic link of another user on the way (it could be pointed elsewhere later); follows one of its own', async () => {
    const base = await scratch();
    const target = path.join(base, 'target');
    await mkdir(target, { mode: 0o755 });
    const theirs = path.join(base, 'their-link');
    await symlink(target, theirs);
    await lchown(theirs, OTHER_USER, OTHER_USER);
    await expect(ensurePrivateDirectory(path.join(theirs, 'sandboxes'), REMEDY)).rejects.toThrow(
      /their-link is not safe to keep code in: it is a symbolic link of uid 65534/,
    );
    const ours = path.join(base, 'our-link');
    await symlink(target, ours);
    expect(await ensurePrivateDirectory(path.join(ours, 'sandboxes'), REMEDY)).toBe(path.join(await realpath(target), 'sandboxes'));
  });
});
