import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A uid and gid a script runs as. */
export interface RunAs {
  uid: number;
  gid: number;
}

/** Creates a fresh directory (0700) for one run under `root`, owned by the user the script runs as. */
export async function createScratchDirectory(root: string, owner: RunAs | null): Promise<string> {
  const dir = await mkdtemp(path.join(root, 'script-sandbox-'));
  if (owner) await chown(dir, owner.uid, owner.gid);
  return dir;
}

/** Removes a run's directory, also when the script left directories without write or search permission. */
export async function removeScratchDirectory(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await execFileAsync('chmod', ['-R', 'u+rwX', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Null when `user` can search every directory from / down to `dir` and list `dir` itself, else the first
 * directory in the way. bwrap runs as that user and resolves its bind sources with their permissions.
 */
export async function pathReachableBy(dir: string, user: RunAs): Promise<string | null> {
  const parts = path.resolve(dir).split('/').filter(Boolean);
  for (let depth = 0; depth <= parts.length; depth++) {
    const current = `/${parts.slice(0, depth).join('/')}`;
    const needed = depth === parts.length ? 0o5 : 0o1; // r-x on the directory itself, x on its parents
    const info = await stat(current);
    const bits = info.uid === user.uid ? (info.mode >> 6) & 7 : info.gid === user.gid ? (info.mode >> 3) & 7 : info.mode & 7;
    if ((bits & needed) !== needed) return `${current} (mode ${(info.mode & 0o7777).toString(8).padStart(4, '0')})`;
  }
  return null;
}
