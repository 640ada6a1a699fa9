import { lstat, readdir, readlink } from 'node:fs/promises';

/** Where the package's files are, read-only, inside the sandbox. */
export const SANDBOX_PACKAGE_DIR = '/skill';
/** The run's scratch directory inside the sandbox: working directory, HOME, TMPDIR. */
export const SANDBOX_SCRATCH_DIR = '/scratch';

/** How the host's root looks: which top-level entries are symlinks into /usr (merged /usr) or directories. */
export interface HostLayout {
  rootEntries: { name: string; symlinkTarget: string | null }[];
  /** Entries of /etc the sandbox sees (read-only); every other file of /etc stays hidden. */
  etcEntries: string[];
}

const ROOT_PROGRAM_DIRS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];
/**
 * The /etc entries interpreters need: the dynamic loader's cache, /usr/bin's alternatives symlinks, the
 * time zone, OpenSSL's configuration and CA files, Debian's python3.x sitecustomize. Not passwd, hosts
 * or anything with the machine's users, addresses or service configuration.
 */
const ETC_ENTRIES = ['alternatives', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'localtime', 'ssl', 'ca-certificates'];

/** Reads the host layout once per sandbox. */
export async function readHostLayout(): Promise<HostLayout> {
  const rootEntries: HostLayout['rootEntries'] = [];
  for (const name of ROOT_PROGRAM_DIRS) {
    try {
      const info = await lstat(`/${name}`);
      if (info.isSymbolicLink()) rootEntries.push({ name, symlinkTarget: await readlink(`/${name}`) });
      else if (info.isDirectory()) rootEntries.push({ name, symlinkTarget: null });
    } catch {
      // absent on this machine
    }
  }
  const present = new Set(await readdir('/etc').catch(() => [] as string[]));
  const etcEntries = [...ETC_ENTRIES, ...[...present].filter((name) => /^python3(\.\d+)?$/.test(name)).sort()].filter((name) =>
    present.has(name),
  );
  return { rootEntries, etcEntries };
}

export interface BubblewrapRun {
  layout: HostLayout;
  /** Host paths; bwrap (running as the sandbox user) must be able to reach them, see pathReachableBy. */
  packageDir: string;
  scratchDir: string;
  environment: Record<string, string>;
  /** Runs inside the sandbox, e.g. prlimit … -- python3 -B /skill/scripts/x.py. */
  command: string[];
}

/**
 * The bwrap command line of one run. The sandbox sees /usr (and the root symlinks into it), a few /etc
 * entries, a fresh /dev and /proc, the package read-only at /skill and the scratch directory at /scratch
 * and /tmp: nothing else of the host, in particular not /var/run (Postgres' and Redis' unix sockets are
 * reachable through a read-only bind: connect() ignores read-only mounts), /root, /home or /work.
 */
export function bubblewrapArguments(run: BubblewrapRun): string[] {
  const args = [
    // Every namespace: no network (only a loopback of its own), own PID namespace, own IPC and hostname.
    '--unshare-all',
    // Explicit so that --disable-userns applies: a script cannot make nested user namespaces, a common
    // first step of kernel exploits.
    '--unshare-user',
    '--disable-userns',
    // The sandbox dies with bwrap and bwrap with the executor; setsid keeps it off any terminal.
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--clearenv',
  ];
  for (const [key, value] of Object.entries(run.environment)) args.push('--setenv', key, value);
  args.push('--ro-bind', '/usr', '/usr');
  for (const entry of run.layout.rootEntries) {
    if (entry.symlinkTarget !== null) args.push('--symlink', entry.symlinkTarget, `/${entry.name}`);
    else args.push('--ro-bind', `/${entry.name}`, `/${entry.name}`);
  }
  for (const name of run.layout.etcEntries) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  args.push(
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--ro-bind',
    run.packageDir,
    SANDBOX_PACKAGE_DIR,
    '--bind',
    run.scratchDir,
    SANDBOX_SCRATCH_DIR,
    // /tmp is the scratch directory too, for scripts that ignore TMPDIR: one writable place, on disk.
    '--bind',
    run.scratchDir,
    '/tmp',
    // bwrap's root and /dev are tmpfs the sandbox could write to (and fill memory with): read-only, so the
    // scratch directory is the only writable place.
    '--remount-ro',
    '/dev',
    '--remount-ro',
    '/',
    '--chdir',
    SANDBOX_SCRATCH_DIR,
    '--',
    ...run.command,
  );
  return args;
}
