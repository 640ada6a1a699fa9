import { readdir, readFile, readlink } from 'node:fs/promises';

/** Sends `signal` to the process group led by `pid`; a group that is already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Sends `signal` to every process of the PID namespace that the bwrap process `bwrapPid` made, except the
 * namespace's reaper (bwrap's child, PID 1 inside). Used for SIGTERM on cancellation: bwrap does not
 * forward signals and the script runs in a session of its own, so signalling bwrap's group would only
 * kill bwrap (and, through --die-with-parent, SIGKILL the script without a chance to clean up).
 */
export async function signalNamespaceMembers(bwrapPid: number, signal: NodeJS.Signals): Promise<number> {
  const pids = await listPids();
  const ownNamespace = await pidNamespace(bwrapPid);
  let reaper: number | null = null;
  let namespace: string | null = null;
  for (const pid of pids) {
    if ((await parentPid(pid)) !== bwrapPid) continue;
    const candidate = await pidNamespace(pid);
    if (candidate !== null && candidate !== ownNamespace) {
      reaper = pid;
      namespace = candidate;
      break;
    }
  }
  if (namespace === null) return 0;
  let signalled = 0;
  for (const pid of pids) {
    if (pid === reaper || (await pidNamespace(pid)) !== namespace) continue;
    try {
      process.kill(pid, signal);
      signalled++;
    } catch {
      // exited meanwhile
    }
  }
  return signalled;
}

async function listPids(): Promise<number[]> {
  const entries = await readdir('/proc');
  return entries.filter((name) => /^\d+$/.test(name)).map(Number);
}

async function parentPid(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

async function pidNamespace(pid: number): Promise<string | null> {
  try {
    return await readlink(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}
