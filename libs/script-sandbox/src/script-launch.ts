import { spawn } from 'node:child_process';
import path from 'node:path';
import { bubblewrapArguments, SANDBOX_SCRATCH_DIR, type HostLayout } from './bubblewrap-arguments.js';
import { withInheritedFdsClosed } from './inherited-fds.js';
import { signalGroup, signalNamespaceMembers } from './process-signals.js';
import { superviseProcess, type RunEnd, type SupervisionOptions } from './process-supervisor.js';
import type { RunAs } from './scratch-directory.js';
import { scriptEnvironment } from './script-environment.js';

/** What a sandbox found out about the machine, once. */
export interface HostSetup {
  bash: string;
  prlimit: string | null;
  /** Null without bubblewrap. */
  layout: HostLayout | null;
  /** The unprivileged user of the runs; null when the executor itself is not root (runs keep its uid). */
  runAs: RunAs | null;
}

/** How to spawn one run and how to ask it to stop. */
export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  runAs: RunAs | null;
  requestStop: (pid: number) => Promise<unknown>;
}

/** A run inside bubblewrap: `command` is what runs inside (prlimit … interpreter /skill/…). */
export function isolatedLaunch(
  setup: HostSetup,
  bwrapPath: string,
  dirs: { packageDir: string; scratchDir: string },
  command: string[],
  extraEnv?: Record<string, string>,
): Launch {
  const environment = scriptEnvironment(SANDBOX_SCRATCH_DIR, extraEnv);
  const bwrap = [
    bwrapPath,
    ...bubblewrapArguments({
      layout: setup.layout as HostLayout,
      packageDir: path.resolve(dirs.packageDir),
      scratchDir: dirs.scratchDir,
      environment,
      command,
    }),
  ];
  // bwrap itself gets no variables either: its environment is readable as /proc/1/environ inside.
  const [program, ...args] = withInheritedFdsClosed(setup.bash, bwrap, true);
  return { command: program, args, env: {}, cwd: '/', runAs: setup.runAs, requestStop: (pid) => signalNamespaceMembers(pid, 'SIGTERM') };
}

/** A run without isolation (operator opt-out): the interpreter as a plain child in the scratch directory. */
export function directLaunch(setup: HostSetup, scratchDir: string, command: string[], extraEnv?: Record<string, string>): Launch {
  const [program, ...args] = withInheritedFdsClosed(setup.bash, command, false);
  return {
    command: program,
    args,
    env: scriptEnvironment(scratchDir, extraEnv),
    cwd: scratchDir,
    runAs: setup.runAs,
    requestStop: async (pid) => signalGroup(pid, 'SIGTERM'),
  };
}

/** Spawns the run in a process group of its own and supervises it to its end. */
export function startLaunch(launch: Launch, supervision: Omit<SupervisionOptions, 'requestStop'>): Promise<RunEnd> {
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    // setsid: one kill(-pid) reaches every process of the run.
    detached: true,
    stdio: 'pipe',
    ...(launch.runAs ? { uid: launch.runAs.uid, gid: launch.runAs.gid } : {}),
  });
  return superviseProcess(child, { ...supervision, requestStop: launch.requestStop });
}
