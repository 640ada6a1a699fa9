import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDirectory } from '#script-sandbox/index.js';
import { pathReachableBy } from '#script-sandbox/scratch-directory.js';

/** The user script tools run as under bubblewrap when the executor is root (the sandbox library's default). */
const SANDBOX_USER = { uid: 65534, gid: 65534 };

/**
 * Creates the package cache root. Script tools run as another user (nobody, under bubblewrap) and must
 * traverse every directory down to their package, so the directories created here are 0755 whatever the
 * umask. Directories that already exist are left as they are: a home directory stays as its owner set it. It must be
 * private to this service (see ensurePrivateDirectory), or the executor does not start.
 */
export async function createPackageCacheRoot(root: string): Promise<void> {
  const resolved = path.resolve(root);
  const firstCreated = await mkdir(resolved, { recursive: true, mode: 0o755 });
  if (firstCreated !== undefined) {
    for (let dir = resolved; ; dir = path.dirname(dir)) {
      await chmod(dir, 0o755);
      if (dir === firstCreated || dir === path.dirname(dir)) break;
    }
  }
  // Packages are verified against their hash when first used, then loaded from here: no other user may change them.
  await ensurePrivateDirectory(
    resolved,
    'Remove it (its owner or root can), or set PACKAGE_CACHE_DIR to a directory that only this service can write to.',
  );
}

/**
 * Why the sandbox user cannot reach packages under `root` (the first directory in the way), or null.
 * Only asked when scripts run as that user: under bubblewrap, with the executor running as root.
 */
export async function packageCacheBlocked(root: string): Promise<string | null> {
  const blocked = await pathReachableBy(root, SANDBOX_USER);
  if (blocked === null) return null;
  return (
    `the package cache ${path.resolve(root)} cannot be reached by the sandbox user (uid ${SANDBOX_USER.uid}): ${blocked}. ` +
    `Set PACKAGE_CACHE_DIR to a directory every user can traverse (the default is under the OS temp directory)`
  );
}
