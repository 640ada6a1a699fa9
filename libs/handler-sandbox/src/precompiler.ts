import { fork, type ChildProcess } from 'node:child_process';
import { cp, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '#database/paths.js';

const COMPILE_TIMEOUT_MS = 60_000;
/** The compiler process ends after this long without work (it holds SWC, ~30 MB, that the executor need not). */
const COMPILER_IDLE_MS = 30_000;

/**
 * Prepares, per package content hash, the directory of JavaScript a sandbox process loads instead of
 * transpiling TypeScript itself (see sandbox-compiler.ts): once per hash, kept across processes and
 * restarts, written to a temporary name and renamed, so a half-written directory is never used. A
 * package that cannot be precompiled still runs: its sandbox transpiles it with Babel (slower).
 */
export class Precompiler {
  private runtime: Promise<string | null> | null = null;
  private readonly pending = new Map<string, Promise<string | null>>();
  private readonly compiler = new CompilerProcess();

  /** Names the runtime the sandboxes load (see stageRuntime): its precompiled modules and every package's directory carry it. */
  private runtimeKey = 'unstaged';

  constructor(private readonly root: string) {}

  useRuntime(key: string): void {
    this.runtimeKey = key;
  }

  /** Ends the compiler process. */
  async close(): Promise<void> {
    this.compiler.stop();
  }

  /** The directory for `contentHash` (made now if needed), or null when it could not be made. */
  forPackage(contentHash: string, packageDir: string): Promise<string | null> {
    const key = hashKey(contentHash);
    if (key === null) return Promise.resolve(null);
    contentHash = key;
    let made = this.pending.get(contentHash);
    if (!made) {
      made = this.make(contentHash, packageDir).finally(() => this.pending.delete(contentHash));
      this.pending.set(contentHash, made);
    }
    return made;
  }

  private async make(contentHash: string, packageDir: string): Promise<string | null> {
    // Per runtime too: a package's directory holds the runtime's precompiled modules beside its own.
    const dir = path.join(this.root, `${this.runtimeKey}-${contentHash}`);
    if (await exists(dir)) return dir;
    const runtimeDir = await this.runtimeDir();
    if (runtimeDir === null) return null;
    const temporary = `${dir}.tmp-${process.pid}-${Date.now()}`;
    try {
      await cp(runtimeDir, temporary, { recursive: true });
      await this.compiler.compile({ packageDir, outDir: temporary });
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

  /**
   * A directory of precompiled JavaScript that several packages share (an inspector's): the runtime's modules
   * now, each package's as `addPackage` compiles it. Modules are named by the hash of their source, so packages
   * never overwrite each other's, and the same source is compiled once. Under `parent` (default: this
   * precompiler's root), which must be readable by the sandbox user. Null when it cannot be made.
   */
  async sharedDir(name: string, parent = this.root): Promise<string | null> {
    const runtimeDir = await this.runtimeDir();
    if (runtimeDir === null) return null;
    const dir = path.join(parent, `${this.runtimeKey}-shared-${name}`);
    await rm(dir, { recursive: true, force: true });
    await cp(runtimeDir, dir, { recursive: true });
    return dir;
  }

  /** Compiles the package at `packageDir` into `dir` (a sharedDir). */
  addPackage(packageDir: string, dir: string): Promise<void> {
    return this.compiler.compile({ packageDir, outDir: dir });
  }

  private runtimeDir(): Promise<string | null> {
    this.runtime ??= (async () => {
      const dir = path.join(this.root, `runtime-${this.runtimeKey}`);
      if (await exists(path.join(dir, '.complete'))) return dir;
      const temporary = `${dir}.tmp-${process.pid}-${Date.now()}`;
      await this.compiler.compile({ runtimeDir: temporary });
      await writeFile(path.join(temporary, '.complete'), '');
      await rename(temporary, dir).catch(async (error: NodeJS.ErrnoException) => {
        await rm(temporary, { recursive: true, force: true });
        if (!(await exists(path.join(dir, '.complete')))) throw error;
      });
      return dir;
    })().catch(() => {
      this.runtime = null;
      return null;
    });
    return this.runtime;
  }
}

/**
 * The compiler process, started on the first request and ended after COMPILER_IDLE_MS without one; a
 * request it does not answer within COMPILE_TIMEOUT_MS (or that it dies on) fails, and the next one
 * starts a new process.
 */
class CompilerProcess {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  private idleTimer: NodeJS.Timeout | null = null;

  compile(request: { runtimeDir?: string; packageDir?: string; outDir?: string }): Promise<void> {
    const child = this.started();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the compiler did not answer in time'));
        this.stop();
      }, COMPILE_TIMEOUT_MS);
      this.waiting.set(id, { resolve, reject, timer });
      child.send({ id, ...request });
    });
  }

  stop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    // Always the build's (under Jest the sources run, and the services may run from a bundle).
    const entry = path.join(projectRoot(), 'dist/libs/handler-sandbox/src/sandbox-compiler.js');
    // Trusted, but it parses packages: no platform variable either (SWC needs HOME for its binding cache).
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' };
    const child = fork(entry, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'json', env });
    child.stderr?.resume();
    child.on('message', (reply: { id: number; ok: boolean; error?: string }) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      clearTimeout(waiter.timer);
      if (reply.ok) waiter.resolve();
      else waiter.reject(new Error(reply.error ?? 'compile failed'));
      if (this.waiting.size === 0) this.idleTimer = setTimeout(() => this.stop(), COMPILER_IDLE_MS).unref();
    });
    child.on('exit', () => {
      if (this.child === child) this.child = null;
      for (const [id, waiter] of this.waiting) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error('the compiler process ended'));
        this.waiting.delete(id);
      }
    });
    child.on('error', () => undefined);
    this.child = child;
    return child;
  }
}

/** A content hash (`sha256:<hex>` or hex) as a directory name, or null when it is neither. */
export function hashKey(contentHash: string): string | null {
  const hex = contentHash.startsWith('sha256:') ? contentHash.slice('sha256:'.length) : contentHash;
  return /^[0-9a-f]{16,128}$/.test(hex) ? hex : null;
}

async function exists(target: string): Promise<boolean> {
  return stat(target).then(
    () => true,
    () => false,
  );
}
