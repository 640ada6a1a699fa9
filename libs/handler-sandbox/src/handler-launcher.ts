import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { projectRoot as findProjectRoot } from '#database/paths.js';
import {
  bubblewrapArguments,
  createScratchDirectory,
  ensurePrivateDirectory,
  pathReachableBy,
  removeScratchDirectory,
  SANDBOX_PACKAGE_DIR,
  SANDBOX_SCRATCH_DIR,
  ScriptSandbox,
  ScriptSandboxUnavailable,
  withInheritedFdsClosed,
  type HostSetup,
  type IsolationMode,
} from '#script-sandbox/index.js';
import { hashKey, Precompiler } from './precompiler.js';
import type { ProcessSpawn } from './sandbox-process.js';
import type { HandlerSandboxLauncher } from './sandbox-pool.js';
import type { HandlerSandboxHostOptions } from './sandbox-host-options.js';

/** Where a sandbox process finds the JavaScript the executor transpiled for its package. */
const SANDBOX_PRECOMPILED_DIR = '/compiled';

/** Limits of each sandbox process (prlimit inside bubblewrap, and V8's heap). */
export interface HandlerProcessLimits {
  /** V8 old-generation heap, MiB. */
  memoryMb: number;
  /** Address space (RLIMIT_AS), MiB: Buffers and every mapping together. */
  addressSpaceMb: number;
  /** Processes and threads of the sandbox together (RLIMIT_NPROC; node itself uses about a dozen). */
  maxProcesses: number;
  maxOpenFiles: number;
  /** Largest file it may write, MiB (RLIMIT_FSIZE). */
  maxFileMb: number;
  /** CPU time over the process's life, s (RLIMIT_CPU); the pool recycles a process at half of it. */
  cpuSeconds: number;
}

export interface HandlerLauncherOptions {
  isolation: IsolationMode;
  limits: HandlerProcessLimits;
  maxFrameBytes: number;
  /** Where per-process scratch directories are made (default <tmp>/skill-registry/sandboxes). */
  sandboxRoot?: string;
  bwrapPath?: string;
  /** SANDBOX_TEST_WRITABLE_DIR: a directory writable in every sandbox, for tests only. */
  testWritableDir?: string;
}

/** Where a sandbox process finds its runtime (the staged copy, read-only) inside bubblewrap. */
const SANDBOX_RUNTIME_DIR = '/runtime';

/** The files a sandbox process runs (its entry and what that entry imports), staged in one directory. */
interface Runtime {
  /** The staged copy on the host. */
  dir: string;
}

/**
 * Builds the command line of a sandbox process for one package: under bubblewrap (own user, PID, IPC,
 * network and mount namespaces; no network; uid 65534; a read-only view of /usr, the runtime and the
 * package's stored bytes; a private scratch directory; prlimit on address space, processes, open
 * files, file size and CPU time), node with its permission model on top, allowing reads of the runtime
 * and the package and writes to the scratch directory only. With the operator's opt-out
 * (`HANDLER_SANDBOX=none`) the same process runs as a plain child with the same environment.
 */
export class HandlerLauncher implements HandlerSandboxLauncher {
  private readonly probe: ScriptSandbox;
  private readonly precompiler: Precompiler;
  private setup: Promise<{ host: HostSetup; runtime: Runtime }> | null = null;

  constructor(private readonly options: HandlerLauncherOptions) {
    this.probe = new ScriptSandbox({ isolation: options.isolation, bwrapPath: options.bwrapPath, scratchRoot: this.sandboxRoot() });
    this.precompiler = new Precompiler(this.precompiledRoot());
  }

  /** Checks once that sandbox processes can start here; rejects with ScriptSandboxUnavailable naming the package to install. */
  ready(): Promise<{ host: HostSetup; runtime: Runtime }> {
    this.setup ??= this.prepare().catch((error: unknown) => {
      this.setup = null;
      throw error;
    });
    return this.setup;
  }

  /** Null when sandbox processes can start here, else the reason (naming the package to install and the opt-out). */
  async unavailableReason(): Promise<string | null> {
    try {
      await this.ready();
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /** The process for the package `contentHash` stored at `packageDir`, with its precompiled JavaScript when it can be made. */
  async spawnSpec(packageDir: string, contentHash: string): Promise<ProcessSpawn> {
    const { host } = await this.ready();
    const [visible, precompiled] = await Promise.all([
      this.reachablePackage(packageDir, contentHash, host),
      this.precompiler.forPackage(contentHash, packageDir),
    ]);
    return this.specFor(visible, precompiled);
  }

  /**
   * The process of a package inspector (PackageInspector): `mountDir`, where the packages to inspect are
   * copied (readable by the sandbox user), read-only at /skill, and `compiledDir` (a shared precompiled
   * directory) at /compiled; otherwise the same sandbox as a handler's.
   */
  inspectionSpec(mountDir: string, compiledDir: string | null): Promise<ProcessSpawn> {
    return this.specFor(mountDir, compiledDir);
  }

  /** A precompiled directory for an inspector's packages, under `parent` (default: the precompiled root; see Precompiler.sharedDir). */
  sharedCompiledDir(name: string, parent?: string): Promise<string | null> {
    return this.ready().then(() => this.precompiler.sharedDir(name, parent));
  }

  /** Compiles a package into a shared precompiled directory (see Precompiler.addPackage). */
  compileInto(packageDir: string, compiledDir: string): Promise<void> {
    return this.precompiler.addPackage(packageDir, compiledDir);
  }

  /** Where per-process scratch directories and inspection copies go (readable by the sandbox user). */
  get root(): string {
    return this.sandboxRoot();
  }

  /**
   * The package where the sandbox user can read it: its own directory when it can (the package cache as
   * createPackageCacheRoot makes it), else a copy under the sandbox root (0755/0644), made once per hash.
   */
  private async reachablePackage(packageDir: string, contentHash: string, host: HostSetup): Promise<string> {
    if (!host.runAs || (await pathReachableBy(packageDir, host.runAs)) === null) return packageDir;
    const key = hashKey(contentHash);
    if (key === null) throw new Error(`the package ${packageDir} cannot be read by the sandbox user`);
    const staged = path.join(this.sandboxRoot(), 'packages', key);
    if (await pathExists(staged)) return staged;
    const temporary = `${staged}.tmp-${process.pid}-${Date.now()}`;
    await cp(packageDir, temporary, { recursive: true });
    await makeReadable(temporary);
    await rename(temporary, staged).catch(async () => rm(temporary, { recursive: true, force: true }));
    return staged;
  }

  private async specFor(packageDir: string, precompiledDir: string | null): Promise<ProcessSpawn> {
    const { host, runtime } = await this.ready();
    const scratchDir = await createScratchDirectory(this.sandboxRoot(), host.runAs);
    const isolated = this.options.isolation === 'bubblewrap';
    const inside = {
      runtimeDir: isolated ? SANDBOX_RUNTIME_DIR : runtime.dir,
      packageDir: isolated ? SANDBOX_PACKAGE_DIR : path.resolve(packageDir),
      scratchDir: isolated ? SANDBOX_SCRATCH_DIR : scratchDir,
      precompiledDir: precompiledDir === null ? null : isolated ? SANDBOX_PRECOMPILED_DIR : precompiledDir,
    };
    const hostOptions: HandlerSandboxHostOptions = {
      maxFrameBytes: this.options.maxFrameBytes,
      scratchDir: inside.scratchDir,
      precompiledDir: inside.precompiledDir,
    };
    const entry = path.join(inside.runtimeDir, 'dist', 'libs', 'handler-sandbox', 'src', 'sandbox-host.js');
    const node = [process.execPath, ...this.nodeFlags(inside), entry, JSON.stringify(hostOptions)];
    const environment = { PATH: '/usr/bin:/bin', HOME: inside.scratchDir, TMPDIR: inside.scratchDir, LANG: 'C.UTF-8' };
    const cleanUp = () => removeScratchDirectory(scratchDir);
    if (!isolated) {
      const [command, ...args] = withInheritedFdsClosed(host.bash, [...this.prlimit(host, false), ...node], false, 3);
      return {
        command: command as string,
        args,
        env: environment,
        cwd: scratchDir,
        runAs: host.runAs,
        packagePathInside: inside.packageDir,
        cleanUp,
      };
    }
    const bwrap = bubblewrapArguments({
      layout: host.layout as NonNullable<HostSetup['layout']>,
      packageDir: path.resolve(packageDir),
      scratchDir,
      environment,
      command: [...this.prlimit(host, true), ...node],
    });
    // Before the remounts (`--remount-ro /`), with the other binds.
    const extraBinds = [
      '--ro-bind',
      runtime.dir,
      SANDBOX_RUNTIME_DIR,
      ...(precompiledDir !== null ? ['--ro-bind', precompiledDir, SANDBOX_PRECOMPILED_DIR] : []),
      ...(this.options.testWritableDir ? ['--bind', this.options.testWritableDir, this.options.testWritableDir] : []),
    ];
    bwrap.splice(bwrap.indexOf('--remount-ro'), 0, ...extraBinds);
    // bwrap itself gets no variables either: its environment is readable as /proc/1/environ inside.
    const [command, ...args] = withInheritedFdsClosed(host.bash, [this.probe.bubblewrap, ...bwrap], true, 3);
    return { command: command as string, args, env: {}, cwd: '/', runAs: host.runAs, packagePathInside: inside.packageDir, cleanUp };
  }

  close(): Promise<void> {
    return this.precompiler.close();
  }

  /** Where precompiled packages go (readable by the sandbox user). */
  precompiledRoot(): string {
    return path.join(this.sandboxRoot(), 'compiled');
  }

  private prlimit(host: HostSetup, isolated: boolean): string[] {
    if (!host.prlimit) return [];
    const limits = this.options.limits;
    const mib = 1024 * 1024;
    const args = [
      host.prlimit,
      `--as=${limits.addressSpaceMb * mib}`,
      `--nofile=${limits.maxOpenFiles}`,
      `--fsize=${limits.maxFileMb * mib}`,
      // Soft limit: SIGXCPU (reported as RESOURCE_EXHAUSTED); hard limit a second later: SIGKILL.
      `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
      '--core=0',
    ];
    // Counted per user namespace only inside bubblewrap (see prlimitCommand in the script sandbox).
    if (isolated) args.push(`--nproc=${limits.maxProcesses}`);
    args.push('--');
    return args;
  }

  /** V8's heap bound and, where this Node has it, its permission model as a second layer. */
  private nodeFlags(inside: { runtimeDir: string; packageDir: string; scratchDir: string; precompiledDir: string | null }): string[] {
    const flags = [`--max-old-space-size=${this.options.limits.memoryMb}`, '--max-semi-space-size=4'];
    const major = Number(process.versions.node.split('.')[0]);
    const permission = major >= 22 ? '--permission' : '--experimental-permission';
    // Node 20 matches directories by a trailing '*'; later versions take directories as they are.
    const dir = (value: string) => (major >= 22 ? value : `${value}/*`);
    const reads = [dir(inside.runtimeDir), dir(inside.packageDir)];
    if (inside.precompiledDir) reads.push(dir(inside.precompiledDir));
    // Inside bubblewrap /tmp is the scratch directory too (the permission model sees paths, not mounts).
    const scratchAliases = this.options.isolation === 'bubblewrap' ? [dir('/tmp')] : [];
    const writes = [
      dir(inside.scratchDir),
      ...scratchAliases,
      ...(this.options.testWritableDir ? [dir(this.options.testWritableDir)] : []),
    ];
    reads.push(...writes);
    // One flag per path: Node 20 does not split a comma-separated list (measured on 20.20).
    flags.push(
      permission,
      ...reads.map((read) => `--allow-fs-read=${read}`),
      ...writes.map((write) => `--allow-fs-write=${write}`),
      '--no-warnings',
    );
    return flags;
  }

  private async prepare(): Promise<{ host: HostSetup; runtime: Runtime }> {
    // The staged runtime and the precompiled JavaScript the sandboxes load are kept here across restarts: no other user may
    // be able to change them (the default is under the shared temporary directory).
    await ensurePrivateDirectory(this.sandboxRoot(), SANDBOX_ROOT_REMEDY);
    await chmod(this.sandboxRoot(), 0o755);
    let host: HostSetup;
    try {
      host = await this.probe.host();
    } catch (error) {
      if (error instanceof ScriptSandboxUnavailable) throw new HandlerSandboxUnavailable(error.reason);
      throw error;
    }
    await mkdir(this.precompiledRoot(), { recursive: true, mode: 0o755 });
    await mkdir(path.join(this.sandboxRoot(), 'packages'), { recursive: true, mode: 0o755 });
    const staged = await stageRuntime(this.sandboxRoot());
    this.precompiler.useRuntime(staged.key);
    const runtime = { dir: staged.dir };
    if (this.options.testWritableDir) {
      await mkdir(this.options.testWritableDir, { recursive: true });
      await chmod(this.options.testWritableDir, 0o1777);
    }
    if (host.runAs) {
      for (const entry of [runtime.dir, this.precompiledRoot()]) {
        const blocked = await pathReachableBy(entry, host.runAs);
        if (blocked !== null)
          throw new HandlerSandboxUnavailable(`${entry} cannot be read by the sandbox user (uid ${host.runAs.uid}): ${blocked}`);
      }
    }
    return { host, runtime };
  }

  private sandboxRoot(): string {
    return path.resolve(this.options.sandboxRoot ?? path.join(tmpdir(), 'skill-registry', 'sandboxes'));
  }
}

async function pathExists(target: string): Promise<boolean> {
  return stat(target).then(
    () => true,
    () => false,
  );
}

/** Directories 0755 and files 0644 (0755 when executable), all the way down. */
async function makeReadable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeReadable(entryPath);
    else if (entry.isFile()) await chmod(entryPath, ((await stat(entryPath)).mode & 0o100) !== 0 ? 0o755 : 0o644);
  }
}

/** TypeScript handlers cannot run isolated here; names the Debian package and the operator's opt-out. */
const SANDBOX_ROOT_REMEDY =
  'Remove it (its owner or root can), or start the service with TMPDIR set to a directory that only its own user can write to.';

class HandlerSandboxUnavailable extends Error {
  constructor(readonly reason: string) {
    super(
      `Skill handlers cannot run isolated: ${reason}. Install bubblewrap (Debian package 'bubblewrap': apt-get install bubblewrap), ` +
        `or set HANDLER_SANDBOX=none to run handlers without isolation (operator opt-out).`,
    );
    this.name = 'HandlerSandboxUnavailable';
  }
}

/**
 * Stages the runtime a sandbox process reads, once per build, as a copy readable by the
 * sandbox user: the sandbox entry and the handler loader from the build (dist/), package.json (its `#lib`
 * import aliases), and of node_modules only jiti, zod, lru-cache and the SDK. Nothing else of the
 * project (configuration, .env, the registry's code, node_modules/.cache with other packages' transpiled
 * code) and no path of the checkout, which the sandbox user may not even be able to reach.
 */
async function stageRuntime(sandboxRoot: string): Promise<{ dir: string; key: string }> {
  // Found by walking up from this module, so the same from the sources (tests), dist/ and a bundle (dist/bundle/).
  const projectRoot = findProjectRoot();
  const sdk = await realpath(path.join(projectRoot, 'node_modules', '@skill-registry', 'sdk'));
  const builtDirs = ['dist/libs/handler-sandbox', 'dist/libs/skill-loader'];
  // The copy is named by what it holds (the built files, the SDK's, the lockfile for the packages): an
  // executor that starts again, or another on this machine, reuses it instead of copying again.
  const key = await fingerprint(
    [...builtDirs.map((dir) => path.join(projectRoot, dir)), path.join(sdk, 'dist')],
    [path.join(projectRoot, 'package.json'), path.join(projectRoot, 'package-lock.json')],
  );
  const target = path.join(sandboxRoot, `runtime-${key}`);
  if (await pathExists(path.join(target, '.complete'))) return { dir: target, key };
  const temporary = `${target}.tmp-${process.pid}-${Date.now()}`;
  const copy = (from: string, to: string) =>
    cp(path.join(projectRoot, from), path.join(temporary, to), { recursive: true, dereference: true });
  await copy('package.json', 'package.json');
  for (const dir of builtDirs) await copy(dir, dir);
  for (const name of ['jiti', 'zod', 'lru-cache']) await copy(`node_modules/${name}`, `node_modules/${name}`);
  for (const entry of ['package.json', 'dist']) {
    await cp(path.join(sdk, entry), path.join(temporary, 'node_modules', '@skill-registry', 'sdk', entry), {
      recursive: true,
      dereference: true,
    });
  }
  await writeFile(path.join(temporary, '.complete'), '');
  await makeReadable(temporary);
  await rename(temporary, target).catch(async (error: NodeJS.ErrnoException) => {
    // Another executor staged the same copy first: theirs is as good.
    await rm(temporary, { recursive: true, force: true });
    if (!(await pathExists(path.join(target, '.complete')))) throw error;
  });
  return { dir: target, key };
}

/** A short hash of the contents of every file under `dirs` and of `files` (missing ones count as empty). */
async function fingerprint(dirs: string[], files: string[]): Promise<string> {
  const hash = createHash('sha256');
  const add = async (file: string) => {
    hash.update(file);
    hash.update(await readFile(file).catch(() => Buffer.alloc(0)));
  };
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const entryPath = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(entryPath);
      else await add(entryPath);
    }
  };
  for (const dir of dirs) await walk(dir);
  for (const file of files) await add(file);
  return hash.digest('hex').slice(0, 16);
}
