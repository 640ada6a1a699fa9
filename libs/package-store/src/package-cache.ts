import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ManifestEntry, sha256Hex, writePackageFiles } from './package-files.js';
import type { PackageStore } from './package-store.js';

/** A package the store does not have (or whose content no longer matches its hash). */
export class PackageUnavailable extends Error {
  constructor(contentHash: string, why: string) {
    super(`package ${contentHash} cannot be run: ${why}`);
    this.name = 'PackageUnavailable';
  }
}

const READY = '.package-ready';

/**
 * Stored packages materialised on local disk, one directory per content hash, so handlers are
 * loaded only from bytes the registry stored. A package is written to a temporary directory,
 * every file checked against the manifest, then renamed into place at once: a reader never sees
 * half a package. The directory survives restarts; each process re-verifies a package the first
 * time it uses it. Least recently used packages are evicted above `maxBytes`.
 */
export class PackageCache {
  private readonly verified = new Map<string, { dir: string; size: number; usedAt: number }>();
  /** Packages an earlier process left in the directory: counted against the bound, verified before any use. */
  private readonly leftovers = new Map<string, { dir: string; size: number; usedAt: number }>();
  private readonly pending = new Map<string, Promise<string>>();
  private readonly inUse = new Map<string, number>();

  constructor(
    private readonly root: string,
    private readonly store: Pick<PackageStore, 'read' | 'manifest'>,
    private readonly maxBytes = 512 * 1024 * 1024,
  ) {}

  /** The local directory holding exactly the stored package `contentHash`. */
  async directory(contentHash: string): Promise<string> {
    const known = this.verified.get(contentHash);
    if (known) {
      known.usedAt = Date.now();
      return known.dir;
    }
    let pending = this.pending.get(contentHash);
    if (!pending) {
      pending = this.prepare(contentHash).finally(() => this.pending.delete(contentHash));
      this.pending.set(contentHash, pending);
    }
    return pending;
  }

  /** Marks a package in use while `work` runs, so eviction leaves it alone. */
  async using<T>(contentHash: string, work: (dir: string) => Promise<T>): Promise<T> {
    this.inUse.set(contentHash, (this.inUse.get(contentHash) ?? 0) + 1);
    try {
      return await work(await this.directory(contentHash));
    } finally {
      const count = (this.inUse.get(contentHash) ?? 1) - 1;
      if (count > 0) this.inUse.set(contentHash, count);
      else this.inUse.delete(contentHash);
    }
  }

  private dirOf(contentHash: string): string {
    if (!/^sha256:[0-9a-f]{64}$/.test(contentHash)) throw new PackageUnavailable(contentHash, 'not a content hash');
    return join(this.root, contentHash.slice('sha256:'.length));
  }

  private async prepare(contentHash: string): Promise<string> {
    const dir = this.dirOf(contentHash);
    const manifest = await this.store.manifest(contentHash);
    if (!manifest) throw new PackageUnavailable(contentHash, 'the registry has no stored package with this hash');
    if (!(await this.matches(dir, manifest))) await this.materialise(contentHash, dir);
    this.leftovers.delete(contentHash);
    this.verified.set(contentHash, { dir, size: manifest.reduce((sum, entry) => sum + entry.size, 0), usedAt: Date.now() });
    await this.evict(contentHash);
    return dir;
  }

  /** True when `dir` is a finished copy whose every file has the manifest's hash. */
  private async matches(dir: string, manifest: ManifestEntry[]): Promise<boolean> {
    try {
      await stat(join(dir, READY));
      for (const entry of manifest) {
        if (sha256Hex(await readFile(join(dir, entry.path))) !== entry.sha256) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  private async materialise(contentHash: string, dir: string): Promise<void> {
    const stored = await this.store.read(contentHash);
    if (!stored) throw new PackageUnavailable(contentHash, 'the registry has no stored package with this hash');
    const temporary = join(this.root, `.tmp-${randomBytes(6).toString('hex')}`);
    try {
      const expected = new Map(stored.manifest.map((entry) => [entry.path, entry.sha256]));
      for (const file of stored.files) {
        if (sha256Hex(file.bytes) !== expected.get(file.path) || file.path.split('/').some((part) => part === '..' || part === '')) {
          throw new PackageUnavailable(contentHash, `stored file ${file.path} does not match the manifest`);
        }
      }
      await writePackageFiles(temporary, stored.files);
      await writeFile(join(temporary, READY), contentHash);
      await rm(dir, { recursive: true, force: true });
      try {
        await rename(temporary, dir);
      } catch (error) {
        // Another executor sharing the cache directory put the same package in place first.
        if (!(await this.matches(dir, stored.manifest))) throw error;
      }
    } finally {
      await rm(temporary, { recursive: true, force: true });
    }
  }

  /** Removes least recently used packages (not `keep`, not in use) while the cache is over its bound. */
  private async evict(keep: string): Promise<void> {
    const entries = [...this.leftovers, ...this.verified];
    let total = entries.reduce((sum, [, entry]) => sum + entry.size, 0);
    if (total <= this.maxBytes) return;
    const candidates = entries.filter(([hash]) => hash !== keep && !this.inUse.has(hash)).sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [hash, entry] of candidates) {
      if (total <= this.maxBytes) break;
      this.verified.delete(hash);
      this.leftovers.delete(hash);
      total -= entry.size;
      await rm(entry.dir, { recursive: true, force: true });
    }
  }

  /**
   * Called once at start: clears interrupted materialisations and counts the packages earlier
   * processes left (by size and last modification) so that the size bound covers them too.
   */
  async sweepTemporary(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    for (const entry of await readdir(this.root, { withFileTypes: true })) {
      const dir = join(this.root, entry.name);
      if (entry.name.startsWith('.tmp-')) await rm(dir, { recursive: true, force: true });
      else if (entry.isDirectory() && /^[0-9a-f]{64}$/.test(entry.name)) {
        this.leftovers.set(`sha256:${entry.name}`, { dir, size: await sizeOf(dir), usedAt: (await stat(dir)).mtimeMs });
      }
    }
  }
}

/** Total size of the files under `dir`, without recursion. */
async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (entry.isDirectory()) pending.push(join(current, entry.name));
      else if (entry.isFile()) total += (await stat(join(current, entry.name))).size;
    }
  }
  return total;
}
