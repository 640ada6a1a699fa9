import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDirectory, type IsolationMode } from '#script-sandbox/index.js';
import type { CodeFiles, CodeInspection, CodeInspector, SchemaReferences } from '#skill-loader/code-inspection.js';
import { HandlerLauncher, type HandlerProcessLimits } from './handler-launcher.js';
import { HandlerSandboxProcess, type PackageCodeInspection, type ProcessBounds } from './sandbox-process.js';

export interface PackageInspectorOptions {
  isolation: IsolationMode;
  limits: HandlerProcessLimits;
  bounds: ProcessBounds;
  /** Longest the evaluation of one package's code may take before its process is stopped. */
  timeoutMs: number;
  /** Shared processes at once (see `inspectorFor('disk')`). */
  maxShared: number;
  /** Packages one shared process inspects before it is replaced. */
  inspectionsPerProcess: number;
  /** A shared process idle this long is ended. */
  idleMs: number;
  sandboxRoot?: string;
  /**
   * Where the copies to inspect go, and the JavaScript precompiled for them (default: the sandbox root). A memory
   * file system (/dev/shm) spares a scan the disk's journal: making and removing a directory per new package waited
   * on it behind Postgres's commits, and so did the compiler's four files per TypeScript module (1,000 new packages:
   * 3.0–3.2 s of the compiler's CPU on the disk against 1.1 s in memory).
   */
  copyRoot?: string;
  bwrapPath?: string;
}

/**
 * Where packages are copied for inspection, by trust: `disk`, packages of the operator's SKILL_PATHS, which a
 * scan inspects several to a process; `published`, packages that arrived over the API, each in a process of
 * its own that sees nothing but its own copy.
 */
export type InspectionTrust = 'disk' | 'published';

interface Workspaces {
  disk: string;
  published: string;
  /** Precompiled JavaScript shared by the disk processes (null: they transpile themselves, slower). */
  compiled: string | null;
  /** Where the precompiled directories go (the disk processes' and each published package's): beside the copies. */
  compiledParent: string;
}

const COPY_ROOT_REMEDY =
  'Remove it (its owner or root can), or give the inspector a directory that only this service can write to (the registry: PACKAGE_INSPECTION_DIR).';

/** Inside an inspection process, the copies are under this directory (bubblewrap's package mount). */
const INSIDE_ROOT = '/skill';

/**
 * Evaluates packages' code (schema.ts, handler.ts) for the registry's package checks in sandbox processes
 * like a handler's (HandlerLauncher: bubblewrap, no network, no environment, uid 65534, prlimits, node's
 * permission model), never in the registry: package code is untrusted, and the registry holds the
 * platform's secrets. A process answers nothing but the JSON Schemas and findings of the package asked,
 * parsed and bounded as untrusted input; one that times out, crashes or breaks the protocol is ended, and
 * the package gets an error finding. Packages of the operator's disk share a few processes (recycled after
 * `inspectionsPerProcess` packages or any failure); a published package always gets a process of its own.
 */
export class PackageInspector {
  private readonly launcher: HandlerLauncher;
  private workspaces: Promise<Workspaces> | null = null;
  private readonly idle: HandlerSandboxProcess[] = [];
  private readonly waiting: ((sandbox: HandlerSandboxProcess | Error) => void)[] = [];
  private sharedCount = 0;
  private copies = 0;
  private readonly sweep: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PackageInspectorOptions) {
    this.launcher = new HandlerLauncher({
      isolation: options.isolation,
      limits: options.limits,
      maxFrameBytes: options.bounds.maxFrameBytes,
      sandboxRoot: options.sandboxRoot,
      bwrapPath: options.bwrapPath,
    });
    this.sweep = setInterval(() => this.endIdle(), Math.max(1000, Math.floor(options.idleMs / 2)));
    this.sweep.unref();
  }

  /** Null when inspection processes can start here, else why not (naming the package to install and the opt-out). */
  unavailableReason(): Promise<string | null> {
    return this.launcher.unavailableReason();
  }

  /**
   * A fresh directory, readable by the sandbox user, to copy one package into as `<dir>/<domain>/<name>`
   * before it is inspected with `inspectorFor(trust)`; the caller removes it afterwards.
   */
  async copyDir(trust: InspectionTrust): Promise<string> {
    const root = (await this.ready())[trust];
    // Synchronous calls: a scan makes one per new package, and a promise's round trip costs several times the
    // call here. The name is unique in this inspector's own workspace (a counter), unguessable all the same.
    const dir = path.join(root, `p-${++this.copies}-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755); // whatever the umask: the sandbox user reads the copy
    return dir;
  }

  /** The inspector of packages copied under `copyDir(trust)`. */
  inspectorFor(trust: InspectionTrust): CodeInspector {
    return (packagePath, references, files) =>
      trust === 'disk' ? this.inspectShared(packagePath, references, files) : this.inspectAlone(packagePath, references, files);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweep);
    for (const sandbox of this.idle.splice(0)) sandbox.stop();
    for (const waiter of this.waiting.splice(0)) waiter(new Error('the package inspector is closed'));
    const workspaces = await this.workspaces?.catch(() => null);
    if (workspaces) {
      await Promise.all(
        [workspaces.disk, workspaces.published, workspaces.compiled].map((dir) => dir && rm(dir, { recursive: true, force: true })),
      );
      // And the directory that held the copy workspaces (empty now), so a closed inspector leaves nothing behind.
      await rm(path.dirname(workspaces.disk), { recursive: true, force: true });
    }
    await this.launcher.close();
  }

  /**
   * In a shared process; a failure other than a timeout is tried once more in a fresh process: the process may
   * have failed to start, or been disturbed by a package inspected before in it (one that truly fails, fails twice).
   */
  private async inspectShared(packagePath: string, references: SchemaReferences, files: CodeFiles): Promise<CodeInspection> {
    const workspaces = await this.ready();
    const inside = insidePath(workspaces.disk, packagePath, this.options.isolation);
    // A package that cannot be precompiled is transpiled in the sandbox (slower), with its own error positions.
    if (workspaces.compiled) await this.launcher.compileInto(packagePath, workspaces.compiled).catch(() => undefined);
    const first = await this.attemptShared(workspaces, inside, references, files);
    const outcome = first.ok || first.timedOut ? first : await this.attemptShared(workspaces, inside, references, files, true);
    if (!outcome.ok) throw new Error(outcome.message);
    return codeInspectionOf(outcome.inspection, inside, packagePath);
  }

  private async attemptShared(
    workspaces: Workspaces,
    inside: string,
    references: SchemaReferences,
    files: CodeFiles,
    fresh = false,
  ): Promise<{ ok: true; inspection: PackageCodeInspection } | { ok: false; timedOut: boolean; message: string }> {
    let sandbox: HandlerSandboxProcess;
    try {
      sandbox = fresh ? await this.start(workspaces.disk, workspaces.compiled) : await this.acquire(workspaces);
    } catch (error) {
      return { ok: false, timedOut: false, message: (error as Error).message };
    }
    if (fresh) this.sharedCount++; // released like any shared process
    let ok = false;
    try {
      const outcome = await sandbox.inspect({ packagePath: inside, references, files }, this.options.timeoutMs);
      if (!outcome.ok) return { ok: false, timedOut: outcome.error.code === 'HANDLER_TIMEOUT', message: outcome.error.message };
      ok = true;
      return { ok: true, inspection: outcome.inspection };
    } finally {
      this.release(sandbox, ok);
    }
  }

  private async inspectAlone(packagePath: string, references: SchemaReferences, files: CodeFiles): Promise<CodeInspection> {
    const workspaces = await this.ready();
    // The process sees this package's copy directory only: `<published>/p-…` at /skill.
    const relative = path.relative(workspaces.published, packagePath);
    const copyDir = path.join(workspaces.published, relative.split(path.sep)[0] as string);
    const inside = insidePath(copyDir, packagePath, this.options.isolation);
    const compiled = await this.launcher
      .sharedCompiledDir(`alone-${process.pid}-${randomBytes(6).toString('hex')}`, workspaces.compiledParent)
      .catch(() => null);
    let sandbox: HandlerSandboxProcess | null = null;
    try {
      if (compiled) await this.launcher.compileInto(packagePath, compiled).catch(() => undefined);
      // A process that fails to start has run none of the package's code: one more try.
      sandbox = await this.start(copyDir, compiled).catch(() => this.start(copyDir, compiled));
      const outcome = await sandbox.inspect({ packagePath: inside, references, files }, this.options.timeoutMs);
      if (!outcome.ok) throw new Error(outcome.error.message);
      return codeInspectionOf(outcome.inspection, inside, packagePath);
    } finally {
      sandbox?.stop();
      if (compiled) await rm(compiled, { recursive: true, force: true });
    }
  }

  private async start(mountDir: string, compiledDir: string | null): Promise<HandlerSandboxProcess> {
    const spec = await this.launcher.inspectionSpec(mountDir, compiledDir);
    const sandbox = new HandlerSandboxProcess('package-inspection', spec, this.options.bounds);
    try {
      await sandbox.ready;
    } catch (error) {
      sandbox.stop();
      throw error;
    }
    return sandbox;
  }

  private acquire(workspaces: Workspaces): Promise<HandlerSandboxProcess> {
    if (this.closed) return Promise.reject(new Error('the package inspector is closed'));
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.sharedCount < this.options.maxShared) {
      this.sharedCount++;
      return this.start(workspaces.disk, workspaces.compiled).catch((error: unknown) => {
        this.sharedCount--;
        throw error;
      });
    }
    return new Promise((resolve, reject) =>
      this.waiting.push((sandbox) => (sandbox instanceof Error ? reject(sandbox) : resolve(sandbox))),
    );
  }

  /** A process that failed, or served its share, is replaced; a healthy one goes to the next waiter, or idles. */
  private release(sandbox: HandlerSandboxProcess, ok: boolean): void {
    if (!ok || !sandbox.alive || sandbox.runs >= this.options.inspectionsPerProcess || this.closed) {
      sandbox.stop();
      this.sharedCount--;
      const waiter = this.waiting.shift();
      if (waiter) void this.ready().then((workspaces) => this.acquire(workspaces).then(waiter, (error: Error) => waiter(error)));
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter) waiter(sandbox);
    else this.idle.push(sandbox);
  }

  private endIdle(): void {
    const now = Date.now();
    for (const sandbox of [...this.idle]) {
      if (now - sandbox.lastUsed < this.options.idleMs && sandbox.alive) continue;
      this.idle.splice(this.idle.indexOf(sandbox), 1);
      sandbox.stop();
      this.sharedCount--;
    }
  }

  private ready(): Promise<Workspaces> {
    this.workspaces ??= (async () => {
      await this.launcher.ready();
      const copyRoot = path.resolve(this.options.copyRoot ?? this.launcher.root);
      // The copies and the JavaScript compiled from them are what the inspection processes load: no other user may change them.
      await ensurePrivateDirectory(copyRoot, COPY_ROOT_REMEDY);
      await removeLeftovers(this.launcher.root);
      if (copyRoot !== this.launcher.root) await removeLeftovers(copyRoot);
      const base = path.join(copyRoot, 'inspection', `${process.pid}-${randomBytes(4).toString('hex')}`);
      const workspaces = {
        disk: path.join(base, 'disk'),
        published: path.join(base, 'published'),
        compiledParent: path.join(copyRoot, 'compiled'),
      };
      for (const dir of [copyRoot, path.dirname(base), base, workspaces.disk, workspaces.published, workspaces.compiledParent]) {
        await mkdir(dir, { recursive: true });
        await chmod(dir, 0o755);
      }
      const compiled = await this.launcher.sharedCompiledDir(`disk-${path.basename(base)}`, workspaces.compiledParent).catch(() => null);
      return { ...workspaces, compiled };
    })().catch((error: unknown) => {
      this.workspaces = null;
      throw error;
    });
    return this.workspaces;
  }
}

/**
 * What inspectors of processes that are gone (killed, crashed) left: their copy directories and shared precompiled
 * directories, named by their process id. Best effort; another process's live directories are left alone.
 */
async function removeLeftovers(root: string): Promise<void> {
  const gone = (pid: string) => {
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  const sweep = async (dir: string, pattern: RegExp) => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const pid = pattern.exec(name)?.[1];
      if (pid && gone(pid)) await rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
    }
  };
  await sweep(path.join(root, 'inspection'), /^(\d+)-[0-9a-f]+$/);
  await sweep(path.join(root, 'compiled'), /-shared-(?:disk|alone)-(\d+)-[0-9a-f]+$/);
}

/**
 * `packagePath` (under `mountDir`) as an inspection process sees it: under /skill, where bubblewrap mounts `mountDir`;
 * where it is without bubblewrap (HANDLER_SANDBOX=none), the process seeing the host's file system.
 */
function insidePath(mountDir: string, packagePath: string, isolation: IsolationMode): string {
  const relative = path.relative(mountDir, packagePath);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`${packagePath} is not a copy made for inspection (under ${mountDir})`);
  }
  return isolation === 'bubblewrap' ? path.posix.join(INSIDE_ROOT, ...relative.split(path.sep)) : path.resolve(packagePath);
}

/** The process's report as the loader takes it, its paths named as the registry sees the copy. */
function codeInspectionOf(inspection: PackageCodeInspection, inside: string, packagePath: string): CodeInspection {
  const here = (text: string) => text.replaceAll(inside, packagePath);
  return {
    inputJsonSchema: inspection.inputJsonSchema,
    outputJsonSchema: inspection.outputJsonSchema,
    issues: inspection.issues.map((issue) => ({ ...issue, message: here(issue.message), hint: here(issue.hint) })),
  };
}
