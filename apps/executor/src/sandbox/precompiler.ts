import { execFile } from 'node:child_process';
import { cp, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const COMPILE_TIMEOUT_MS = 60_000;

/**
 * Prepares, per package content hash, the directory of JavaScript a sandbox process loads instead of
 * transpiling TypeScript itself (see sandbox-compiler.ts): once per hash, kept across processes and
 * restarts, written to a temporary name and renamed, so a half-written directory is never used. A
 * package that cannot be precompiled still runs: its sandbox transpiles it with Babel (slower).
 */
export class Precompiler {
  private runtime: Promise<string | null> | null = null;
  private readonly pending = new Map<string, Promise<string | null>>();

  constructor(private readonly root: string) {}

  /** The directory for `contentHash` (made now if needed), or null when it could not be made. */
  forPackage(contentHash: string, packageDir: string): Promise<string | null> {
    if (!/^[0-9a-f]{16,128}$/.test(contentHash)) return Promise.resolve(null);
    let made = this.pending.get(contentHash);
    if (!made) {
      made = this.make(contentHash, packageDir).finally(() => this.pending.delete(contentHash));
      this.pending.set(contentHash, made);
    }
    return made;
  }

  private async make(contentHash: string, packageDir: string): Promise<string | null> {
    const dir = path.join(this.root, contentHash);
    if (await exists(dir)) return dir;
    const runtimeDir = await this.runtimeDir();
    if (runtimeDir === null) return null;
    const temporary = `${dir}.tmp-${process.pid}-${Date.now()}`;
    try {
      await cp(runtimeDir, temporary, { recursive: true });
      await compile({ packageDir, outDir: temporary });
      await rename(temporary, dir).catch(async (error: NodeJS.ErrnoException) => {
        // Another executor (or an earlier call) made it first: theirs is as good.
        if (!(await exists(dir))) throw error;
        await rm(temporary, { recursive: true, force: true });
      });
      return dir;
    } catch {
      await rm(temporary, { recursive: true, force: true });
      return null;
    }
  }

  private runtimeDir(): Promise<string | null> {
    this.runtime ??= (async () => {
      const dir = path.join(this.root, `runtime-${process.pid}`);
      await rm(dir, { recursive: true, force: true });
      await compile({ runtimeDir: dir });
      return dir;
    })().catch(() => {
      this.runtime = null;
      return null;
    });
    return this.runtime;
  }
}

async function compile(request: { runtimeDir?: string; packageDir?: string; outDir?: string }): Promise<void> {
  const entry = fileURLToPath(new URL('./sandbox-compiler.js', distUrlOf(import.meta.url)));
  await execFileAsync(process.execPath, [entry, JSON.stringify(request)], { timeout: COMPILE_TIMEOUT_MS, maxBuffer: 1024 * 1024 });
}

/** This module's URL in dist/ (under Jest the sources run, but processes start from the build). */
export function distUrlOf(url: string): string {
  return url.includes('/dist/') ? url : url.replace(/\/apps\/executor\/src\//, '/dist/apps/executor/src/').replace(/\.ts$/, '.js');
}

async function exists(dir: string): Promise<boolean> {
  return readdir(dir).then(
    () => true,
    () => false,
  );
}
