import type { Stats } from 'node:fs';
import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** A directory of the service's that another user could change (see ensurePrivateDirectory). */
export class UnsafeDirectory extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
    remedy: string,
  ) {
    super(`${dir} is not safe to keep code in: ${reason}; another user could change what the sandboxes load. ${remedy}`);
    this.name = 'UnsafeDirectory';
  }
}

const STICKY = 0o1000;
const WRITABLE_BY_OTHERS = 0o022;

/**
 * Makes `dir` (and the parents it lacks, with `mode`) and checks that no other user can change what is in it: the
 * directory and every one above it belongs to this process's user or to root, and no one else may write to it. Above
 * the directory, one that others may write to is allowed when it is sticky (/tmp, /dev/shm): there, no one can rename
 * or remove what another user owns. Without these checks a user of the same machine who made
 * `<tmp>/skill-registry` first (or a parent of a configured directory) could plant precompiled JavaScript, a staged
 * runtime or a package copy that a sandbox then loads instead of the stored bytes. Throws UnsafeDirectory naming the
 * first directory in the way and `remedy` (what the operator can do). Returns the directory's real path.
 * Written by hand: the rule is a few lines of stat, and no maintained library states it for a directory tree.
 */
export async function ensurePrivateDirectory(dir: string, remedy: string, mode = 0o755): Promise<string> {
  await mkdir(dir, { recursive: true, mode });
  const own = process.getuid?.();
  const real = await realpath(dir);
  if (own === undefined) return real; // no POSIX owners here (Windows): nothing to check
  // A symbolic link on the way is followed at every later use: its owner could point it elsewhere after this check.
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let depth = 1; depth <= parts.length; depth++) {
    const current = path.sep + parts.slice(0, depth).join(path.sep);
    const info = await lstat(current);
    if (info.isSymbolicLink() && info.uid !== own && info.uid !== 0) {
      throw new UnsafeDirectory(current, `it is a symbolic link of uid ${info.uid}, not of this service (uid ${own}) or root`, remedy);
    }
  }
  for (let current = real; ; current = path.dirname(current)) {
    const problem = privacyProblem(await stat(current), current === real);
    if (problem !== null) throw new UnsafeDirectory(current, problem, remedy);
    if (current === path.dirname(current)) return real;
  }
}

/**
 * Why a directory with status `info` is not private to this process's user (see ensurePrivateDirectory), or null:
 * another user's, or writable by others — which a directory above `dir` may be when it is sticky, `dir` itself never.
 */
export function privacyProblem(info: Stats, isTheDirectory: boolean): string | null {
  const own = process.getuid?.();
  if (own === undefined) return null;
  if (info.uid !== own && info.uid !== 0) return `it belongs to uid ${info.uid}, not to this service (uid ${own}) or root`;
  const writableByOthers = (info.mode & WRITABLE_BY_OTHERS) !== 0;
  if (writableByOthers && (isTheDirectory || (info.mode & STICKY) === 0)) {
    return `other users may write to it (mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')})`;
  }
  return null;
}
