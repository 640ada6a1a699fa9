import { access, constants, realpath } from 'node:fs/promises';
import path from 'node:path';

/** The interpreters a script tool may use, chosen by the script's file extension. */
export type Interpreter = 'python3' | 'bash' | 'node';

const INTERPRETER_BY_EXTENSION: Readonly<Record<string, Interpreter>> = {
  '.py': 'python3',
  '.sh': 'bash',
  '.bash': 'bash',
  '.js': 'node',
  '.mjs': 'node',
};

/**
 * Directories searched for interpreters, in order; the script's PATH is the same list. The operator's
 * PATH is not used: version-manager shims (pyenv, nvm) are scripts that need their own HOME and tree,
 * which the sandbox does not mount, and a per-user PATH would make runs differ between machines.
 */
export const SYSTEM_BIN_DIRS: readonly string[] = ['/usr/local/bin', '/usr/bin', '/bin'];

/** The interpreter for a script (`.py` python3, `.sh`/`.bash` bash, `.js`/`.mjs` node), or null. */
export function interpreterFor(scriptPath: string): Interpreter | null {
  return INTERPRETER_BY_EXTENSION[path.extname(scriptPath).toLowerCase()] ?? null;
}

/** Supported extensions, for messages. */
export function supportedExtensions(): string[] {
  return Object.keys(INTERPRETER_BY_EXTENSION);
}

/**
 * Absolute path of a program in SYSTEM_BIN_DIRS, or null. With `under`, a candidate counts only if its
 * real path lies below that directory (bubblewrap mounts /usr only, so /usr/local/bin/node linking to
 * /opt/node would not exist inside the sandbox).
 */
export async function findProgram(name: string, under?: string): Promise<string | null> {
  for (const dir of SYSTEM_BIN_DIRS) {
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      const real = await realpath(candidate);
      if (under === undefined || real.startsWith(`${under}/`)) return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  return null;
}

/** The command line that runs `scriptPath` (already absolute, as the process will see it). */
export function interpreterCommand(interpreter: Interpreter, binary: string, scriptPath: string): string[] {
  // -B: no __pycache__ next to the package's files (read-only in the sandbox, shared without it).
  if (interpreter === 'python3') return [binary, '-B', scriptPath];
  return [binary, scriptPath];
}
